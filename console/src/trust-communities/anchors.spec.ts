import { anchorSentence, anchorsOf, purposesOf, splitPem } from './anchors.js';

const pem = (body: string) => `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;

describe('splitPem', () => {
  it('splits a file that holds several certificates into one PEM each, in order', () => {
    expect(splitPem(`${pem('AAAA')}${pem('BBBB')}`)).toEqual([pem('AAAA'), pem('BBBB')]);
  });

  it('leaves out the text around the certificates (openssl subject and issuer lines)', () => {
    expect(splitPem(`subject=CN = Community A CA\nissuer=CN = Community A CA\n${pem('AAAA')}`)).toEqual([pem('AAAA')]);
  });

  it('reads Windows line ends as newlines', () => {
    expect(splitPem(pem('AAAA').replace(/\n/g, '\r\n'))).toEqual([pem('AAAA')]);
  });

  it('finds nothing in text without a certificate', () => {
    expect(splitPem('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')).toEqual([]);
  });
});

describe('anchorsOf', () => {
  it('takes the certificates of every file and of the pasted text, each with where it came from', () => {
    const read = anchorsOf([{ file: 'ca.pem', text: pem('AAAA') }, { file: 'bundle.pem', text: `${pem('BBBB')}${pem('CCCC')}` }, { text: pem('DDDD') }]);
    expect(read).toEqual({
      anchors: [pem('AAAA'), pem('BBBB'), pem('CCCC'), pem('DDDD')],
      origins: ['ca.pem', 'the first certificate of bundle.pem', 'the second certificate of bundle.pem', 'the pasted text'],
    });
  });

  it('ignores empty pasted text', () => {
    expect(anchorsOf([{ text: '  \n' }])).toEqual({ anchors: [], origins: [] });
  });

  it('refuses a file without a PEM certificate, naming it (a DER file)', () => {
    const read = anchorsOf([{ file: 'ca.crt', text: '0\u0082\u0001' }]);
    expect(read).toMatchObject({ pasted: false });
    expect('refusal' in read && read.refusal).toMatch(/^The file ca\.crt holds no PEM certificate/);
  });

  it('refuses pasted text holding something besides certificates', () => {
    const read = anchorsOf([{ text: `${pem('AAAA')}-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n` }]);
    expect(read).toMatchObject({ pasted: true });
    expect('refusal' in read && read.refusal).toMatch(/^The pasted text holds something besides PEM certificates/);
  });
});

describe('anchorSentence', () => {
  const origins = ['ca.pem', 'the second certificate of bundle.pem'];

  it('names a refused anchor by where it came from', () => {
    expect(anchorSentence('anchors[1]: an anchor must be a CA certificate (basicConstraints CA:TRUE)', origins)).toBe(
      'The anchor from the second certificate of bundle.pem is not a CA certificate: an anchor must be the community’s certificate authority (basicConstraints CA:TRUE).',
    );
  });

  it('says an anchor has expired', () => {
    expect(anchorSentence('anchors[0]: the anchor has expired', origins)).toBe('The anchor from ca.pem has expired.');
  });

  it('numbers an anchor it knows no origin of, and keeps a reason it has no words for', () => {
    expect(anchorSentence('anchors[4]: something new', origins)).toBe('Anchor 5 is refused: something new.');
  });

  it('asks for 1 to 20 anchors when none or too many were given', () => {
    expect(anchorSentence('anchors must hold 1 to 20 PEM certificates', [])).toBe('Give 1 to 20 anchor certificates.');
  });

  it('leaves other refusals their words', () => {
    expect(anchorSentence('anchors is required', [])).toBeUndefined();
  });
});

describe('purposesOf', () => {
  it('reads space-separated codes, empty as any ([])', () => {
    expect(purposesOf(' urn:oid:2.16.840.1.113883.5.8#TREAT  urn:oid:2.16.840.1.113883.5.8#ETREAT ')).toEqual([
      'urn:oid:2.16.840.1.113883.5.8#TREAT',
      'urn:oid:2.16.840.1.113883.5.8#ETREAT',
    ]);
    expect(purposesOf('')).toEqual([]);
  });
});
