import { editDistance, lookalikeLine, lookalikeVariables } from './lookalike-variables.js';

describe('lookalikeVariables', () => {
  it('names a misspelt variable with the one it is closest to', () => {
    expect(lookalikeVariables({ ACCES_TOKEN_TTL: '60' })).toEqual([{ given: 'ACCES_TOKEN_TTL', known: 'ACCESS_TOKEN_TTL' }]);
    expect(lookalikeVariables({ TOKEN_SINGING_ALG: 'ES256' })).toEqual([{ given: 'TOKEN_SINGING_ALG', known: 'TOKEN_SIGNING_ALG' }]);
    expect(lookalikeVariables({ access_token_ttl: '60' })).toEqual([{ given: 'access_token_ttl', known: 'ACCESS_TOKEN_TTL' }]);
  });

  it('names a variable that starts like ours but is none of them', () => {
    const [found] = lookalikeVariables({ STATUS_LIST_LENGTH: '1024' });
    expect(found.given).toBe('STATUS_LIST_LENGTH');
    expect(found.known).toMatch(/^STATUS_LIST_/);
  });

  it("says nothing of our own variables, the shell's, npm's or other programs'", () => {
    expect(
      lookalikeVariables({
        ACCESS_TOKEN_TTL: '60',
        PORT: '3000',
        HOME: '/root',
        HOSTNAME: 'box',
        PATH: '/usr/bin',
        npm_config_cache: '/tmp',
        NODE_ENV: 'production',
        TEST_DATABASE_URL: 'postgres://x',
        UV_THREADPOOL_SIZE: '4',
        CHROMIUM_PATH: '/usr/bin/chromium',
        JEST_WORKER_ID: '1',
        SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
      }),
    ).toEqual([]);
  });

  it('writes one line naming both', () => {
    expect(lookalikeLine({ given: 'ACCES_TOKEN_TTL', known: 'ACCESS_TOKEN_TTL' })).toBe(
      'ACCES_TOKEN_TTL is not a setting of this server and is ignored; did you mean ACCESS_TOKEN_TTL?',
    );
  });
});

describe('editDistance', () => {
  it('counts a transposition as one edit', () => {
    expect(editDistance('ACCESS_TOKEN_TLT', 'ACCESS_TOKEN_TTL', 2)).toBe(1);
    expect(editDistance('abc', 'abc', 2)).toBe(0);
    expect(editDistance('short', 'a much longer name', 2)).toBe(3);
  });
});
