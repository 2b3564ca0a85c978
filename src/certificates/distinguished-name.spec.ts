import { formatDistinguishedName, NameSyntaxError, parseDistinguishedName, sameName } from './distinguished-name.js';

const CN = '2.5.4.3';
const O = '2.5.4.10';
const C = '2.5.4.6';

describe('parseDistinguishedName', () => {
  it('reads RFC 4514 text, most significant RDN last, into certificate order', () => {
    expect(parseDistinguishedName('CN=lab-gw,O=Example Lab,C=DE')).toEqual([
      [{ oid: C, value: 'DE' }],
      [{ oid: O, value: 'Example Lab' }],
      [{ oid: CN, value: 'lab-gw' }],
    ]);
  });

  it('reads types by any case or OID, escapes, hex escapes and multi-valued RDNs', () => {
    expect(parseDistinguishedName('cn=a\\,b+2.5.4.11=x\\2Cy,o=Caf\\C3\\A9')).toEqual([
      [{ oid: O, value: 'Café' }],
      [
        { oid: CN, value: 'a,b' },
        { oid: '2.5.4.11', value: 'x,y' },
      ],
    ]);
  });

  it.each(['', 'CN', 'XX=1', 'CN=a"b', 'CN=a\\q'])('refuses %j', (text) => {
    expect(() => parseDistinguishedName(text)).toThrow(NameSyntaxError);
  });
});

describe('sameName', () => {
  const name = parseDistinguishedName('CN=lab-gw,O=Example Lab,C=DE');

  it('ignores case, insignificant spaces and the order inside an RDN', () => {
    expect(sameName(name, parseDistinguishedName(' cn = LAB-GW , o=example   lab,c=de'))).toBe(true);
    expect(sameName(parseDistinguishedName('CN=a+OU=b'), parseDistinguishedName('OU=B+CN=A'))).toBe(true);
  });

  it('minds the order of RDNs, their number and the values', () => {
    expect(sameName(name, parseDistinguishedName('C=DE,O=Example Lab,CN=lab-gw'))).toBe(false);
    expect(sameName(name, parseDistinguishedName('CN=lab-gw,O=Example Lab'))).toBe(false);
    expect(sameName(name, parseDistinguishedName('CN=lab-gw2,O=Example Lab,C=DE'))).toBe(false);
  });
});

describe('formatDistinguishedName', () => {
  it('writes a name most significant RDN last, with RFC 4514 short names', () => {
    expect(formatDistinguishedName([[{ oid: C, value: 'US' }], [{ oid: O, value: 'Example Health' }], [{ oid: CN, value: 'gw' }]])).toBe(
      'CN=gw,O=Example Health,C=US',
    );
  });

  it('escapes special characters, a leading "#" or space and a trailing space', () => {
    expect(formatDistinguishedName([[{ oid: CN, value: ' #a,b+c"d\\e; ' }]])).toBe('CN=\\ #a\\,b\\+c\\"d\\\\e\\;\\ ');
  });

  it('writes a name parseDistinguishedName reads back as the same name', () => {
    const name = [
      [{ oid: C, value: 'DE' }],
      [{ oid: O, value: 'Café, Lab' }],
      [
        { oid: CN, value: 'a+b' },
        { oid: '2.5.4.11', value: 'x' },
      ],
      [{ oid: '1.2.3.4', value: '=v' }],
    ];
    expect(parseDistinguishedName(formatDistinguishedName(name))).toEqual(name);
  });
});
