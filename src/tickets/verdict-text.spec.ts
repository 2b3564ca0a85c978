import { verdictText } from './verdict-text.js';

describe('verdictText', () => {
  it('says what a granted token gets, and which records cover each resource scope', () => {
    const text = verdictText({
      client: 'glucose-app',
      granted: true,
      scope: 'uma_protection glucose:read',
      lifetime: 900,
      aud: ['https://a.example', 'https://b.example'],
      scopes: [
        { scope: 'uma_protection', granted: true, allowed: true },
        {
          scope: 'glucose:read',
          granted: true,
          allowed: true,
          covering: [
            {
              requestedResource: { id: '30', requestedResourceId: 'patient-1', maxPermissionDuration: 900 },
              capabilityTicket: { id: '20', ticketId: 'T-1', ticketName: 'Glucose' },
              purpose: { id: '10', name: 'Follow-up' },
              requestedResourceScopes: ['40'],
              requestedResourcesCapabilityTickets: ['50'],
            },
          ],
        },
      ],
    });
    expect(text).toBe(
      'glucose-app gets a token for "uma_protection glucose:read": lifetime 900 s, aud https://a.example https://b.example\n' +
        '  uma_protection: granted\n' +
        '  glucose:read: granted\n' +
        '    requested resource 30 (patient-1, at most 900 s), ticket T-1 "Glucose", purpose "Follow-up", requested-resource-scopes 40, combinations 50\n',
    );
  });

  it('says what is missing for a refused scope', () => {
    const text = verdictText({
      client: 'glucose-app',
      granted: false,
      scope: 'admin',
      lifetime: null,
      aud: null,
      scopes: [{ scope: 'admin', granted: false, allowed: false, missing: 'scope "admin" is not in the allowed scopes of client glucose-app' }],
    });
    expect(text).toBe('glucose-app is refused a token for "admin"\n  admin: refused, scope "admin" is not in the allowed scopes of client glucose-app\n');
  });

  it('says what a SMART scope denotes and what a wildcard expands to', () => {
    const text = verdictText({
      client: 'export',
      granted: false,
      scope: 'system/*.rs system/Patient.rs',
      lifetime: null,
      aud: null,
      scopes: [
        { scope: 'system/*.rs', granted: true, allowed: true, expandsTo: ['system/Observation.rs'] },
        { scope: 'system/Observation.rs', granted: true, allowed: true, denotes: 'observations:read', covering: [] },
        {
          scope: 'system/Patient.rs',
          granted: false,
          allowed: true,
          denotes: null,
          covering: [],
          missing: 'no resource definition has fhirResourceType "Patient" without a query',
        },
      ],
    });
    expect(text).toBe(
      'export is refused a token for "system/*.rs system/Patient.rs"\n' +
        '  system/*.rs (expands to system/Observation.rs): granted\n' +
        '  system/Observation.rs (denotes observations:read): granted\n' +
        '  system/Patient.rs (denotes nothing): refused, no resource definition has fhirResourceType "Patient" without a query\n',
    );
  });

  it('says the purposes of use a UDAP request asserts and the code each covering ticket matched', () => {
    const text = verdictText({
      client: 'udap-org',
      granted: true,
      scope: 'glucose:read',
      purposesOfUse: ['urn:oid:2.16.840.1.113883.5.8#TREAT'],
      lifetime: 900,
      aud: 'https://rs1.example',
      scopes: [
        {
          scope: 'glucose:read',
          granted: true,
          allowed: true,
          covering: [
            {
              requestedResource: { id: '30', requestedResourceId: 'patient-1', maxPermissionDuration: 900 },
              capabilityTicket: { id: '2', ticketId: 'T-1', ticketName: 'Glucose' },
              purpose: { id: '10', name: 'Follow-up' },
              requestedResourceScopes: ['40'],
              requestedResourcesCapabilityTickets: ['50'],
              purposeOfUse: 'urn:oid:2.16.840.1.113883.5.8#TREAT',
            },
          ],
        },
      ],
    });
    expect(text).toBe(
      'udap-org gets a token for "glucose:read": lifetime 900 s, aud https://rs1.example\n' +
        '  purposes of use asserted: urn:oid:2.16.840.1.113883.5.8#TREAT\n' +
        '  glucose:read: granted\n' +
        '    requested resource 30 (patient-1, at most 900 s), ticket T-1 "Glucose", purpose "Follow-up" (purpose of use urn:oid:2.16.840.1.113883.5.8#TREAT), requested-resource-scopes 40, combinations 50\n',
    );
  });
});
