import { isAbsoluteUriWithin, isPurposeOfUseCode } from './purpose-of-use.js';

describe('isPurposeOfUseCode', () => {
  it.each(['urn:oid:2.16.840.1.113883.5.8#TREAT', 'urn:oid:2.16.840.1.113883.5.8#ETREAT', 'http://terminology.hl7.org/CodeSystem/v3-ActReason#HPAYMT'])(
    'accepts the URI form %s',
    (code) => expect(isPurposeOfUseCode(code)).toBe(true),
  );

  it.each([
    ['a bare code', 'TREAT'],
    ['an empty string', ''],
    ['white space', 'urn:oid:2.16.840.1.113883.5.8# TREAT'],
    ['a control character', 'urn:oid:2.16.840.1.113883.5.8#TREAT\u0000'],
    ['a scheme alone', 'urn:'],
    ['more than 255 characters', `urn:oid:2.16.840.1.113883.5.8#${'T'.repeat(230)}`],
  ])('refuses %s', (_, code) => expect(isPurposeOfUseCode(code)).toBe(false));
});

describe('isAbsoluteUriWithin', () => {
  it('accepts an absolute URI up to the limit and refuses a longer one', () => {
    expect(isAbsoluteUriWithin('https://org.example/fhir', 24)).toBe(true);
    expect(isAbsoluteUriWithin('https://org.example/fhir', 23)).toBe(false);
  });

  it('refuses a relative reference', () => {
    expect(isAbsoluteUriWithin('/fhir/Organization/1', 2048)).toBe(false);
  });
});
