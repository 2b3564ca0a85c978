import { validateRegistration } from './client-registration.js';
import { newClientAttributes, newSecretOf } from './new-client.js';

const base = { clientId: 'glucose-app', clientName: 'Glucose app', allowedScopes: 'read  write' };
const jwksRaw = JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }] });

describe('the secret of a new client', () => {
  it('is generated (256 bits, base64url) when none is given', () => {
    const secret = newSecretOf(validateRegistration(base));
    expect(secret.generated).toBe(true);
    expect(secret.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('is the given one, not marked generated', () => {
    expect(newSecretOf(validateRegistration({ ...base, clientSecret: 'an-operator-chosen-secret' }))).toEqual({
      value: 'an-operator-chosen-secret',
      generated: false,
    });
  });

  it('is absent for a private_key_jwt client, which holds keys instead', () => {
    expect(newSecretOf(validateRegistration({ ...base, authenticationType: 'private_key_jwt', jwksRaw }))).toEqual({ generated: false });
  });
});

describe('the attributes stored and audited for a new client', () => {
  it('are the validated registration, as the admin interface names them, without the secret', () => {
    const input = { ...base, clientSecret: 'an-operator-chosen-secret', redirectUris: ['https://app.example/cb'], dpopBound: true };
    expect(newClientAttributes(validateRegistration(input), input)).toEqual({
      clientId: 'glucose-app',
      clientName: 'Glucose app',
      clientType: 'CONFIDENTIAL',
      clientAuthenticationType: 'client_secret_basic',
      grantTypes: 'client_credentials',
      allowedScopes: 'read write',
      redirectUris: ['https://app.example/cb'],
      issuerUri: null,
      jwksUri: null,
      jwksRaw: null,
      metaDataRaw: null,
      dpopBoundAccessTokens: true,
      accessTokenLifetime: null,
      tlsClientAuthSubjectDn: null,
      tlsClientAuthSanDns: null,
      tlsClientAuthSanUri: null,
      tlsClientAuthSanIp: null,
      tlsClientAuthSanEmail: null,
      tlsClientAuthIssuerDn: null,
      tlsClientCertificateBoundAccessTokens: false,
    });
  });

  it('keep the admin-only issuerUri and metaDataRaw as given', () => {
    const input = { ...base, issuerUri: 'https://issuer.example', metaDataRaw: '{"a":1}' };
    expect(newClientAttributes(validateRegistration(input), input)).toMatchObject({ issuerUri: 'https://issuer.example', metaDataRaw: '{"a":1}' });
  });
});
