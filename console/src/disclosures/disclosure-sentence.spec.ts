import { clockTime, disclosureSentence, type DisclosureAttributes } from './disclosure-sentence.js';

const at = (hours: number, minutes: number, day = 23) => new Date(2026, 10, day, hours, minutes).toISOString();
const today = new Date(2026, 10, 23, 12, 0);
const chain = (ticketId: string, purpose = 'Your doctor follows your blood glucose level', scope = 'blood-glucose-level:read') => ({
  scope,
  capabilityTicket: { ticketId },
  purpose: { name: purpose },
});

function disclosure(overrides: Partial<DisclosureAttributes> = {}): DisclosureAttributes {
  return { clientId: 'glucose-app', issuedAt: at(10, 2), expiresAt: at(10, 32), chains: [chain('T-1')], withdrawnAt: null, withdrawnBy: null, ...overrides };
}

describe('disclosureSentence', () => {
  it('says who was given what, for which purpose, when, until when and under which ticket', () => {
    expect(disclosureSentence(disclosure(), today)).toBe(
      "glucose-app was given blood-glucose-level:read for 'Your doctor follows your blood glucose level' at 10:02, until 10:32, under ticket T-1",
    );
  });

  it('ends with the withdrawal and the change that made it', () => {
    expect(disclosureSentence(disclosure({ withdrawnAt: at(10, 5), withdrawnBy: '412' }), today)).toMatch(
      /, under ticket T-1, withdrawn at 10:05 by change 412$/,
    );
  });

  it('joins several chains with "and"', () => {
    const sentence = disclosureSentence(disclosure({ chains: [chain('T-1'), chain('T-2', 'Research')] }), today);
    expect(sentence).toBe(
      "glucose-app was given blood-glucose-level:read for 'Your doctor follows your blood glucose level' and blood-glucose-level:read for 'Research' at 10:02, until 10:32, under tickets T-1 and T-2",
    );
  });

  it('says which organization a UDAP token was for and its purposes of use', () => {
    const udap = disclosure({
      organizationId: 'https://general.example/fhir',
      organizationName: 'General Hospital',
      purposeOfUse: ['urn:oid:2.16.840.1.113883.5.8#TREAT', 'urn:oid:2.16.840.1.113883.5.8#ETREAT'],
    });
    expect(disclosureSentence(udap, today)).toMatch(
      /, under ticket T-1, for General Hospital \(https:\/\/general\.example\/fhir\), purposes of use urn:oid:2\.16\.840\.1\.113883\.5\.8#TREAT and urn:oid:2\.16\.840\.1\.113883\.5\.8#ETREAT$/,
    );
  });

  it('names an organization without a name by its URI, before the withdrawal', () => {
    const udap = disclosure({
      organizationId: 'https://general.example/fhir',
      organizationName: null,
      purposeOfUse: ['urn:oid:2.16.840.1.113883.5.8#TREAT'],
      withdrawnAt: at(10, 5),
      withdrawnBy: '412',
    });
    expect(disclosureSentence(udap, today)).toMatch(
      /, under ticket T-1, for https:\/\/general\.example\/fhir, purpose of use urn:oid:2\.16\.840\.1\.113883\.5\.8#TREAT, withdrawn at 10:05 by change 412$/,
    );
  });

  it('says nothing of an organization for a token without one', () => {
    expect(disclosureSentence(disclosure({ organizationId: null, purposeOfUse: null }), today)).not.toContain(', for ');
  });

  it('writes the date of another day', () => {
    expect(clockTime(at(9, 7, 21), today)).toBe('21 Nov 2026 09:07');
    expect(clockTime(at(23, 59), today)).toBe('23:59');
  });
});
