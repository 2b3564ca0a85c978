import { readHl7B2b } from './hl7-b2b-claim.js';
import { OAuthError } from './oauth-error.js';

const TREAT = 'urn:oid:2.16.840.1.113883.5.8#TREAT';
const HPAYMT = 'urn:oid:2.16.840.1.113883.5.8#HPAYMT';
const base = { version: '1', organization_id: 'https://clinic.example/organization', purpose_of_use: [TREAT] };

/** The refusal's error code and description. */
function refusal(extensions: unknown, allowed: string[] = []): { code: string; description: string } {
  try {
    readHl7B2b(extensions, allowed);
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    return { code: (error as OAuthError).code, description: (error as OAuthError).description };
  }
  throw new Error('not refused');
}

describe('readHl7B2b', () => {
  it('answers the members the IG names and drops the others', () => {
    const read = readHl7B2b(
      {
        'hl7-b2b': {
          ...base,
          organization_name: 'Clinic',
          subject_name: 'Dr. Ann',
          subject_id: 'urn:oid:2.16.840.1.113883.4.6#1234567890',
          subject_role: 'http://nucc.org/provider-taxonomy#207Q00000X',
          consent_policy: ['https://policy.example/hipaa'],
          consent_reference: ['https://clinic.example/consent/1'],
          colour: 'blue',
        },
        other: { ignored: true },
      },
      [],
    );
    expect(read).toEqual({
      ...base,
      organization_name: 'Clinic',
      subject_name: 'Dr. Ann',
      subject_id: 'urn:oid:2.16.840.1.113883.4.6#1234567890',
      subject_role: 'http://nucc.org/provider-taxonomy#207Q00000X',
      consent_policy: ['https://policy.example/hipaa'],
      consent_reference: ['https://clinic.example/consent/1'],
    });
  });

  it('accepts any purpose of use when the community lists none', () => {
    expect(readHl7B2b({ 'hl7-b2b': { ...base, purpose_of_use: [HPAYMT] } }, []).purpose_of_use).toEqual([HPAYMT]);
  });

  it('accepts an urn: organization_id', () => {
    expect(readHl7B2b({ 'hl7-b2b': { ...base, organization_id: 'urn:oid:2.16.840.1.113883.3.1' } }, []).organization_id).toBe('urn:oid:2.16.840.1.113883.3.1');
  });

  it.each([
    ['no extensions', undefined, /"extensions"/],
    ['extensions that are an array', [], /"extensions" must be a JSON object/],
    ['no hl7-b2b', {}, /"hl7-b2b"/],
    ['hl7-b2b that is a string', { 'hl7-b2b': 'yes' }, /"hl7-b2b" must be a JSON object/],
    ['no version', { 'hl7-b2b': { ...base, version: undefined } }, /"version"/],
    ['version 2', { 'hl7-b2b': { ...base, version: '2' } }, /"version"/],
    ['no organization_id', { 'hl7-b2b': { ...base, organization_id: undefined } }, /"organization_id" is required/],
    ['a relative organization_id', { 'hl7-b2b': { ...base, organization_id: '/organization/1' } }, /"organization_id" must be an absolute URI/],
    ['an organization_id that is a number', { 'hl7-b2b': { ...base, organization_id: 7 } }, /"organization_id"/],
    ['no purpose_of_use', { 'hl7-b2b': { ...base, purpose_of_use: undefined } }, /"purpose_of_use" is required/],
    ['an empty purpose_of_use', { 'hl7-b2b': { ...base, purpose_of_use: [] } }, /"purpose_of_use" must be a non-empty array/],
    ['a purpose_of_use holding a number', { 'hl7-b2b': { ...base, purpose_of_use: [7] } }, /"purpose_of_use"/],
    ['a subject_role that is an object', { 'hl7-b2b': { ...base, subject_role: {} } }, /"subject_role"/],
    ['a consent_policy that is a string', { 'hl7-b2b': { ...base, consent_policy: 'https://policy.example' } }, /"consent_policy" must be an array/],
    ['a relative consent_policy', { 'hl7-b2b': { ...base, consent_policy: ['policy/1'] } }, /"consent_policy"/],
    ['a consent_reference that is not http(s)', { 'hl7-b2b': { ...base, consent_reference: ['urn:consent:1'] } }, /"consent_reference"/],
  ])('refuses %s with invalid_grant naming the member', (_, extensions, description) => {
    const refused = refusal(extensions);
    expect(refused.code).toBe('invalid_grant');
    expect(refused.description).toMatch(description);
  });

  it("refuses a purpose of use outside the community's list, naming the code", () => {
    const refused = refusal({ 'hl7-b2b': { ...base, purpose_of_use: [TREAT, HPAYMT] } }, [TREAT]);
    expect(refused).toEqual({ code: 'invalid_grant', description: `the purpose of use ${HPAYMT} is not one this client's trust community allows` });
  });
});
