import { OAuthError } from '../oauth/oauth-error.js';
import { checkUdapStatement, MAX_STATEMENT_LIFETIME_SECONDS } from './udap-software-statement.js';

const NOW = 1_800_000_000;
const SAN = 'https://lab.example/udap/client-1';
const context = {
  sanUris: [SAN],
  registrationEndpoint: 'https://as.example/oauth2/register',
  scopeCeiling: 'system/Patient.rs system/Observation.rs',
  now: NOW,
};
const valid = {
  iss: SAN,
  sub: SAN,
  aud: 'https://as.example/oauth2/register',
  iat: NOW,
  exp: NOW + 60,
  jti: 'statement-1',
  client_name: 'Lab',
  contacts: ['mailto:ops@lab.example'],
  grant_types: ['client_credentials'],
  token_endpoint_auth_method: 'private_key_jwt',
  scope: 'system/Patient.rs',
};

function refusal(overrides: Record<string, unknown>): { code: string; description: string } {
  try {
    checkUdapStatement({ ...valid, ...overrides }, context);
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    return { code: (error as OAuthError).code, description: (error as OAuthError).description };
  }
  throw new Error('accepted');
}

describe('checkUdapStatement', () => {
  it('answers what a valid statement registers', () => {
    expect(checkUdapStatement(valid, context)).toEqual({
      iss: SAN,
      jti: 'statement-1',
      exp: NOW + 60,
      cancel: false,
      clientName: 'Lab',
      contacts: ['mailto:ops@lab.example'],
      grantTypes: ['client_credentials'],
      scope: 'system/Patient.rs',
    });
  });

  it('reads grant_types [] as a cancellation, which needs no scope, contacts or client_name', () => {
    const cancel = { ...valid, grant_types: [], scope: undefined, contacts: undefined, client_name: undefined };
    expect(checkUdapStatement(cancel, context)).toMatchObject({ cancel: true, grantTypes: [], scope: '', contacts: [] });
  });

  it('keeps one of each scope named twice', () => {
    expect(checkUdapStatement({ ...valid, scope: 'system/Patient.rs  system/Patient.rs' }, context).scope).toBe('system/Patient.rs');
  });

  it('accepts a statement living exactly the longest lifetime', () => {
    expect(() => checkUdapStatement({ ...valid, exp: NOW + MAX_STATEMENT_LIFETIME_SECONDS }, context)).not.toThrow();
  });

  it.each([
    ['no iss', { iss: undefined }, /"iss" is required/],
    ['a sub other than iss', { sub: 'https://other.example' }, /"sub"/],
    ['another aud', { aud: 'https://as.example/oauth2/token' }, /"aud"/],
    ['an aud array', { aud: ['https://as.example/oauth2/register'] }, /"aud"/],
    ['no iat', { iat: undefined }, /"iat"/],
    ['an iat in the future', { iat: NOW + 60, exp: NOW + 120 }, /"iat" is in the future/],
    ['no exp', { exp: undefined }, /"exp"/],
    ['an exp past', { iat: NOW - 100, exp: NOW }, /"exp" is past/],
    ['too long a life', { exp: NOW + MAX_STATEMENT_LIFETIME_SECONDS + 1 }, /at most 300 seconds/],
    ['no jti', { jti: undefined }, /"jti"/],
    ['an empty jti', { jti: '' }, /"jti"/],
    ['no client_name', { client_name: undefined }, /"client_name"/],
    ['a blank client_name', { client_name: '  ' }, /"client_name"/],
  ])('refuses %s: invalid_software_statement', (_, overrides, description) => {
    const refused = refusal(overrides);
    expect(refused.code).toBe('invalid_software_statement');
    expect(refused.description).toMatch(description);
  });

  it('refuses an iss that is not a SAN URI of the leaf: unapproved_software_statement', () => {
    expect(refusal({ iss: 'https://other.example', sub: 'https://other.example' })).toEqual({
      code: 'unapproved_software_statement',
      description: 'software_statement: "iss" is not a subjectAltName URI of the statement\'s leaf certificate',
    });
  });

  it.each([
    ['grant_types as a string', { grant_types: 'client_credentials' }, /grant_types/],
    ['grant_types with authorization_code', { grant_types: ['client_credentials', 'authorization_code'] }, /grant_types/],
    ['another token_endpoint_auth_method', { token_endpoint_auth_method: 'client_secret_basic' }, /token_endpoint_auth_method/],
    ['a scope outside the ceiling', { scope: 'system/Patient.rs system/Encounter.rs' }, /system\/Encounter.rs is outside/],
    ['an empty scope', { scope: ' ' }, /scope: must name at least one/],
    ['a scope with a quote', { scope: 'system/"Patient' }, /scope/],
    ['contacts as a string', { contacts: 'mailto:ops@lab.example' }, /contacts/],
    ['an https contact', { contacts: ['https://lab.example'] }, /contacts/],
    ['redirect_uris', { redirect_uris: [] }, /redirect_uris/],
    ['response_types', { response_types: ['token'] }, /response_types/],
  ])('refuses %s: invalid_client_metadata', (_, overrides, description) => {
    const refused = refusal(overrides);
    expect(refused.code).toBe('invalid_client_metadata');
    expect(refused.description).toMatch(description);
  });
});
