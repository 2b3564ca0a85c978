import { communityWording } from './community-sentences.js';

const refused = (detail: string, status = '422') => ({ status, code: 'rule_broken', title: 'Rule broken', detail });

describe('communityWording', () => {
  const wording = communityWording(['ca.pem']);

  it('says what a community URI must be', () => {
    expect(wording('communityUri', refused('communityUri must be an absolute URI (at most 2048 characters, no white space)'))).toBe(
      'The community URI must be an absolute URI, such as https://community.example/udap: no spaces, at most 2048 characters.',
    );
  });

  it('names a refused anchor by its file, beside the file field', () => {
    expect(wording('anchorFiles', refused('anchors[0]: the anchor is not yet valid'))).toBe('The anchor from ca.pem is not valid yet.');
  });

  it('names the purpose-of-use code that is not a URI', () => {
    const detail =
      'purpose-of-use code "TREAT" must be an absolute URI of at most 255 characters without white space, such as urn:oid:2.16.840.1.113883.5.8#TREAT';
    expect(wording('purposesOfUse', refused(detail))).toBe(
      'The purpose of use “TREAT” is not a code in URI form: write codes such as urn:oid:2.16.840.1.113883.5.8#TREAT.',
    );
  });

  it('gives the bounds of the access token lifetime', () => {
    expect(wording('accessTokenLifetime', refused('accessTokenLifetime must be a whole number of seconds from 1 to 3600'))).toBe(
      'The access token lifetime must be a whole number of seconds from 1 to 3600.',
    );
  });

  it('says the same of a lifetime typed as words (sent as typed, a wrong JSON type)', () => {
    expect(wording('accessTokenLifetime', refused('accessTokenLifetime must be a number of seconds', '400'))).toBe(
      'The access token lifetime must be a whole number of seconds from 1 to 3600.',
    );
  });

  it('leaves the server its words for what is not a broken rule (another wrong type, a conflict)', () => {
    expect(wording('anchorFiles', refused('anchors must be an array of PEM certificates', '400'))).toBeUndefined();
    expect(wording('communityUri', refused('taken', '409'))).toBeUndefined();
  });
});
