import { generateKeyPairSync } from 'node:crypto';
import { ClientTakenError, RegistrationError, validateKeyMaterial, validateRegistration, type ClientRegistration } from './client-registration.js';

const base: ClientRegistration = { clientId: 'glucose-app', clientName: 'Glucose app', allowedScopes: 'read' };
const publicJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
const jwksRaw = JSON.stringify({ keys: [{ ...publicJwk, kid: 'k1' }] });

/** The field a refused registration names (undefined when it is accepted). */
function refusedField(input: Partial<ClientRegistration>, allowPrivateJwksUri = false): string | undefined {
  try {
    validateRegistration({ ...base, ...input }, { allowPrivateJwksUri });
    return undefined;
  } catch (error) {
    if (error instanceof RegistrationError) return error.field;
    throw error;
  }
}

describe('validateRegistration', () => {
  it('fills the defaults: client_secret_basic, client_credentials, no redirect URIs, keys or lifetime', () => {
    expect(validateRegistration(base)).toEqual({
      ...base,
      authenticationType: 'client_secret_basic',
      grantTypes: 'client_credentials',
      redirectUris: [],
      clientSecret: undefined,
      jwksRaw: null,
      jwksUri: null,
      dpopBound: false,
      accessTokenLifetime: null,
      tlsClientAuthSubjectDn: null,
      tlsClientAuthSanDns: null,
      tlsClientAuthSanUri: null,
      tlsClientAuthSanIp: null,
      tlsClientAuthSanEmail: null,
      tlsClientAuthIssuerDn: null,
      certificateBound: false,
    });
  });

  it('collapses white space in scopes and grant types and drops repeated names', () => {
    const registration = validateRegistration({ ...base, allowedScopes: ' read  write read ', grantTypes: 'refresh_token\tclient_credentials' });
    expect(registration.allowedScopes).toBe('read write');
    expect(registration.grantTypes).toBe('refresh_token client_credentials');
  });

  it.each<[string, Partial<ClientRegistration>, string]>([
    ['a clientId with a non-ASCII character', { clientId: 'glucose-äpp' }, 'clientId'],
    ['an empty clientId', { clientId: '' }, 'clientId'],
    ['a clientId of 256 characters', { clientId: 'a'.repeat(256) }, 'clientId'],
    ['a blank clientName', { clientName: '   ' }, 'clientName'],
    ['a clientName with a control character', { clientName: 'App\u0007' }, 'clientName'],
    ['a scope with a double quote', { allowedScopes: 'read "write"' }, 'allowedScopes'],
    ['no scope at all', { allowedScopes: ' ' }, 'allowedScopes'],
    ['an unknown authentication method', { authenticationType: 'none' }, 'authenticationType'],
    ['an unknown grant type', { grantTypes: 'client_credentials password' }, 'grantTypes'],
    ['grant types without client_credentials', { grantTypes: 'refresh_token' }, 'grantTypes'],
    ['a relative redirect URI', { redirectUris: ['/callback'] }, 'redirectUris'],
    ['a redirect URI with a fragment', { redirectUris: ['https://app.example/cb#x'] }, 'redirectUris'],
    ['a secret of 15 characters', { clientSecret: 'a'.repeat(15) }, 'clientSecret'],
    ['a secret with a non-ASCII character', { clientSecret: 'é'.repeat(20) }, 'clientSecret'],
    ['a lifetime of 0 seconds', { accessTokenLifetime: 0 }, 'accessTokenLifetime'],
    ['a lifetime over a day', { accessTokenLifetime: 86_401 }, 'accessTokenLifetime'],
    ['a lifetime that is not whole', { accessTokenLifetime: 1.5 }, 'accessTokenLifetime'],
    ['both jwksRaw and jwksUri', { jwksRaw, jwksUri: 'https://keys.example/jwks' }, 'jwksUri'],
    ['a jwksRaw that is not a key set', { jwksRaw: '{"keys":"none"}' }, 'jwksRaw'],
    ['a jwksUri that is not https or http', { jwksUri: 'ftp://keys.example/jwks' }, 'jwksUri'],
    ['a jwksUri with a fragment', { jwksUri: 'https://keys.example/jwks#a' }, 'jwksUri'],
    ['a jwksUri on a loopback address', { jwksUri: 'https://127.0.0.1/jwks' }, 'jwksUri'],
    ['a private_key_jwt client without keys', { authenticationType: 'private_key_jwt' }, 'jwksRaw'],
    ['a private_key_jwt client with a secret', { authenticationType: 'private_key_jwt', jwksRaw, clientSecret: 'a'.repeat(32) }, 'clientSecret'],
  ])('refuses %s, naming the field', (_, input, field) => {
    expect(refusedField(input)).toBe(field);
  });

  it('accepts a jwksUri on a private address only when the deployment allows it', () => {
    expect(refusedField({ jwksUri: 'http://10.0.0.5/jwks' }, false)).toBe('jwksUri');
    expect(refusedField({ jwksUri: 'http://10.0.0.5/jwks' }, true)).toBeUndefined();
  });

  it('accepts a private_key_jwt client with its public keys and no secret', () => {
    expect(refusedField({ authenticationType: 'private_key_jwt', jwksRaw })).toBeUndefined();
  });
});

describe('ClientTakenError', () => {
  it('is a registration refusal naming the taken key', () => {
    const byClientId = new ClientTakenError('clientId', 'glucose-app');
    expect(byClientId).toBeInstanceOf(RegistrationError);
    expect([byClientId.field, byClientId.message]).toEqual(['clientId', 'a client with id "glucose-app" already exists']);
    expect(new ClientTakenError('id', 7).field).toBe('id');
  });
});

describe('validateKeyMaterial (shared by every way of registering a client)', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  const hugeRsa = { kty: 'RSA', n: Buffer.concat([Buffer.from([0x80]), Buffer.alloc(2047, 7)]).toString('base64url'), e: 'AQAB' };

  it('accepts a key set within bounds, or a public https URL', () => {
    expect(validateKeyMaterial({ jwksRaw: JSON.stringify({ keys: [ec] }) })).toEqual({ jwksRaw: JSON.stringify({ keys: [ec] }), jwksUri: null });
    expect(validateKeyMaterial({ jwksUri: 'https://keys.example/jwks' })).toEqual({ jwksRaw: null, jwksUri: 'https://keys.example/jwks' });
  });

  it.each([
    ['a 16384-bit RSA key', { jwksRaw: JSON.stringify({ keys: [hugeRsa] }) }, 'jwksRaw', /at most 4096 bits/],
    ['eleven keys', { jwksRaw: JSON.stringify({ keys: Array.from({ length: 11 }, () => ec) }) }, 'jwksRaw', /1 to 10 keys/],
    ['a jwks_uri in shared address space', { jwksUri: 'https://100.100.100.200/jwks' }, 'jwksUri', /loopback, private/],
    ['a jwks_uri at an IPv4-translated loopback', { jwksUri: 'https://[::ffff:0:7f00:1]/jwks' }, 'jwksUri', /loopback, private/],
  ])('refuses %s naming the member', (_name, keys, field, message) => {
    expect(() => validateKeyMaterial(keys)).toThrow(message);
    expect(() => validateKeyMaterial(keys)).toThrow(expect.objectContaining({ field }) as Error);
  });

  it('lets the policy allow internal targets', () => {
    expect(validateKeyMaterial({ jwksUri: 'http://127.0.0.1:9/jwks' }, { allowPrivateJwksUri: true }).jwksUri).toBe('http://127.0.0.1:9/jwks');
  });
});

describe('the certificate methods', () => {
  const base = { clientId: 'lab-gw', clientName: 'Lab gateway', allowedScopes: 'read' };
  const mtls = { allowPrivateJwksUri: false, mtls: true, tlsClientAuth: true };

  it('take tls_client_auth with one subject value and no secret', () => {
    const registration = validateRegistration({ ...base, authenticationType: 'tls_client_auth', tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE' }, mtls);
    expect(registration).toMatchObject({
      authenticationType: 'tls_client_auth',
      tlsClientAuthSubjectDn: 'CN=lab-gw,O=Example Lab,C=DE',
      tlsClientAuthSanDns: null,
    });
  });

  it.each<[string, Partial<ClientRegistration>, object, string]>([
    ['tls_client_auth without MTLS', { authenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'a.example' }, {}, 'authenticationType'],
    ['tls_client_auth without a CA file', { authenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'a.example' }, { mtls: true }, 'authenticationType'],
    [
      'self_signed_tls_client_auth without MTLS',
      { authenticationType: 'self_signed_tls_client_auth', jwksUri: 'https://lab.example/jwks' },
      {},
      'authenticationType',
    ],
    ['certificate-bound tokens without MTLS', { certificateBound: true }, {}, 'certificateBound'],
    [
      'a secret for tls_client_auth',
      { authenticationType: 'tls_client_auth', tlsClientAuthSanDns: 'a.example', clientSecret: 'x'.repeat(20) },
      mtls,
      'clientSecret',
    ],
    ['self_signed_tls_client_auth without keys', { authenticationType: 'self_signed_tls_client_auth' }, mtls, 'jwksRaw'],
  ])('refuse %s', (_case, input, policy, field) => {
    let refused: unknown;
    try {
      validateRegistration({ ...base, ...input }, { allowPrivateJwksUri: false, ...policy });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RegistrationError);
    expect((refused as RegistrationError).field).toBe(field);
  });
});
