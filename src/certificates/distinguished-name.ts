import type { DistinguishedName, NameAttribute } from './client-certificate.js';

/** A registered distinguished name that cannot be read; the message says where. */
export class NameSyntaxError extends Error {}

// RFC 4514 §3 and the attribute types of RFC 4519 and PKIX profiles an operator is likely to write.
const OID_OF_TYPE: Record<string, string> = {
  cn: '2.5.4.3',
  commonname: '2.5.4.3',
  sn: '2.5.4.4',
  surname: '2.5.4.4',
  serialnumber: '2.5.4.5',
  c: '2.5.4.6',
  countryname: '2.5.4.6',
  l: '2.5.4.7',
  localityname: '2.5.4.7',
  st: '2.5.4.8',
  stateorprovincename: '2.5.4.8',
  street: '2.5.4.9',
  streetaddress: '2.5.4.9',
  o: '2.5.4.10',
  organizationname: '2.5.4.10',
  ou: '2.5.4.11',
  organizationalunitname: '2.5.4.11',
  title: '2.5.4.12',
  postalcode: '2.5.4.17',
  givenname: '2.5.4.42',
  gn: '2.5.4.42',
  initials: '2.5.4.43',
  generationqualifier: '2.5.4.44',
  dnqualifier: '2.5.4.46',
  pseudonym: '2.5.4.65',
  organizationidentifier: '2.5.4.97',
  dc: '0.9.2342.19200300.100.1.25',
  domaincomponent: '0.9.2342.19200300.100.1.25',
  uid: '0.9.2342.19200300.100.1.1',
  userid: '0.9.2342.19200300.100.1.1',
  emailaddress: '1.2.840.113549.1.9.1',
  email: '1.2.840.113549.1.9.1',
  e: '1.2.840.113549.1.9.1',
};

const MAX_LENGTH = 2048;

/**
 * Reads a distinguished name written as RFC 4514 says (`CN=lab-gw,O=Example Lab,C=DE`, the most
 * significant RDN last, as `openssl x509 -nameopt RFC2253` prints it): attribute types by name
 * (case-insensitive) or dotted OID, `+` between the attributes of a multi-valued RDN, `\`
 * escapes (`\,` or two hex digits of UTF-8), `#` hex values. Answers the name most significant
 * RDN first, as in a certificate.
 */
export function parseDistinguishedName(text: string): DistinguishedName {
  if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_LENGTH) {
    throw new NameSyntaxError(`a distinguished name of 1 to ${MAX_LENGTH} characters is required`);
  }
  const rdns: DistinguishedName = [];
  let current: NameAttribute[] = [];
  let index = 0;
  for (;;) {
    const attribute = readAttribute(text, index);
    current.push(attribute.attribute);
    index = attribute.end;
    if (index >= text.length) break;
    const separator = text[index];
    index += 1;
    if (separator === ',' || separator === ';') {
      rdns.push(current);
      current = [];
    } else if (separator !== '+') {
      throw new NameSyntaxError(`unexpected ${JSON.stringify(separator)} at position ${index}`);
    }
  }
  rdns.push(current);
  return rdns.reverse();
}

function readAttribute(text: string, start: number): { attribute: NameAttribute; end: number } {
  const equals = text.indexOf('=', start);
  if (equals < 0) throw new NameSyntaxError(`an attribute without "=" at position ${start + 1}`);
  const type = text.slice(start, equals).trim();
  const oid = /^\d+(\.\d+)+$/.test(type) ? type : OID_OF_TYPE[type.toLowerCase()];
  if (oid === undefined) throw new NameSyntaxError(`unknown attribute type ${JSON.stringify(type)} (use a name such as CN, O, OU, C or a dotted OID)`);
  let index = equals + 1;
  while (text[index] === ' ') index += 1;
  if (text[index] === '#') {
    const match = /^#([0-9A-Fa-f]{2})+/.exec(text.slice(index));
    if (!match) throw new NameSyntaxError(`a "#" value at position ${index + 1} must be hexadecimal`);
    return { attribute: { oid, value: `#${match[0].slice(1).toLowerCase()}` }, end: skipSpaces(text, index + match[0].length) };
  }
  const bytes: number[] = [];
  let trailingSpaces = 0;
  while (index < text.length && !',;+'.includes(text[index])) {
    const character = text[index];
    if (character === '\\') {
      const next = text.slice(index + 1, index + 3);
      if (/^[0-9A-Fa-f]{2}$/.test(next)) {
        bytes.push(parseInt(next, 16));
        index += 3;
      } else if (next.length > 0 && ' "#+,;<=>\\'.includes(next[0])) {
        bytes.push(next.charCodeAt(0));
        index += 2;
      } else {
        throw new NameSyntaxError(`a bad escape at position ${index + 1}`);
      }
      trailingSpaces = 0;
      continue;
    }
    if (character === '"') throw new NameSyntaxError(`an unescaped quote at position ${index + 1}`);
    trailingSpaces = character === ' ' ? trailingSpaces + 1 : 0;
    bytes.push(...Buffer.from(character, 'utf8'));
    index += character.length;
  }
  // Unescaped trailing spaces are not part of the value (RFC 4514 §3).
  const value = Buffer.from(bytes.slice(0, bytes.length - trailingSpaces)).toString('utf8');
  return { attribute: { oid, value }, end: index };
}

function skipSpaces(text: string, index: number): number {
  while (text[index] === ' ') index += 1;
  return index;
}

// RFC 4514 §3's short names, and the two more that `openssl x509 -nameopt RFC2253` prints by name.
const NAME_OF_OID: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.6': 'C',
  '2.5.4.9': 'STREET',
  '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID',
  '2.5.4.5': 'serialNumber',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

/**
 * Writes a name as RFC 4514 says (the most significant RDN last, `+` inside a multi-valued RDN,
 * the special characters escaped), so that parseDistinguishedName reads it back as the same
 * name. A value kept as `#` hex (parseDistinguishedName's form of one) is written as it is.
 */
export function formatDistinguishedName(name: DistinguishedName): string {
  return [...name]
    .reverse()
    .map((rdn) => rdn.map((attribute) => `${NAME_OF_OID[attribute.oid] ?? attribute.oid}=${escapedValue(attribute.value)}`).join('+'))
    .join(',');
}

function escapedValue(value: string): string {
  if (/^#([0-9a-f]{2})+$/.test(value)) return value;
  const escaped = value.replace(/["+,;<>\\]/g, (character) => `\\${character}`).replace(/\0/g, '\\00');
  // A leading space or "#" and a trailing space would otherwise be read as syntax (RFC 4514 §2.4).
  return escaped.replace(/^([ #])/, '\\$1').replace(/ $/, '\\ ');
}

/**
 * Whether two names are the same name (RFC 5280 §7.1, with RFC 4518's string preparation made
 * simple): the same number of RDNs in the same order, each with the same attributes (types by
 * OID, in any order within the RDN), values compared after Unicode NFKC, case folding and
 * removal of insignificant spaces (leading, trailing, and runs inside counted as one).
 */
export function sameName(left: DistinguishedName, right: DistinguishedName): boolean {
  if (left.length !== right.length) return false;
  return left.every((rdn, index) => sameRdn(rdn, right[index]));
}

function sameRdn(left: NameAttribute[], right: NameAttribute[]): boolean {
  if (left.length !== right.length) return false;
  const keys = (rdn: NameAttribute[]) => rdn.map((attribute) => `${attribute.oid}=${prepared(attribute.value)}`).sort();
  const [a, b] = [keys(left), keys(right)];
  return a.every((key, index) => key === b[index]);
}

/** RFC 4518 in short: NFKC, case folded, insignificant spaces removed. */
export function prepared(value: string): string {
  return value.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}
