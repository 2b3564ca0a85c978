import { ConfigurationError } from './configuration-error.js';
import { readVariables, SECRET_VARIABLES, VARIABLES } from './variables.js';

describe('the declared variables', () => {
  it('name the secrets that are never echoed nor handed to a worker', () => {
    expect([...SECRET_VARIABLES].sort()).toEqual(['ADMIN_TOKEN', 'DATABASE_URL', 'KEY_ENCRYPTION_SECRET']);
  });

  it('read an unset environment as every declared default', () => {
    const values = readVariables({});
    expect(Object.keys(values)).toEqual(Object.keys(VARIABLES));
    expect(values).toMatchObject({ PORT: 3000, TOKEN_SIGNING_ALG: 'RS256', DPOP_NONCE: false, WORKERS: 1, TRUST_PROXY: false });
  });

  it('refuse a secret without echoing its value', () => {
    expect(() => readVariables({ ADMIN_TOKEN: 'has white space' })).toThrow(new ConfigurationError('ADMIN_TOKEN must be a string without white space'));
  });

  it('refuse a value outside a fixed list in the words of the list', () => {
    expect(() => readVariables({ LOG_FORMAT: 'xml' })).toThrow(new ConfigurationError('LOG_FORMAT must be json or pretty (got "xml")'));
    expect(() => readVariables({ TOKEN_SIGNING_ALG: 'HS256' })).toThrow(
      new ConfigurationError('TOKEN_SIGNING_ALG must be RS256, PS256, ES256 or EdDSA (got "HS256")'),
    );
  });
});
