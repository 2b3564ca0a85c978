import { enabledAuthMethods, holdsNoSecret } from './client-authentication-methods.js';

describe('client authentication methods', () => {
  it('offers the mutual TLS methods only when mutual TLS is on', () => {
    expect(enabledAuthMethods(false)).toEqual(['client_secret_basic', 'client_secret_post', 'private_key_jwt']);
    expect(enabledAuthMethods(true)).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
      'tls_client_auth',
      'self_signed_tls_client_auth',
    ]);
  });

  it('says which methods hold no secret', () => {
    expect(['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth'].filter(holdsNoSecret)).toEqual([
      'private_key_jwt',
      'tls_client_auth',
      'self_signed_tls_client_auth',
    ]);
  });
});
