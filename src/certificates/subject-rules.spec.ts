import { SubjectRuleError, canonicalIp, checkSubjectRule } from './subject-rules.js';

describe('subject rules', () => {
  it('compares IP addresses by their bytes', () => {
    expect(canonicalIp('2001:DB8:0:0::1')).toBe(canonicalIp('2001:db8::1'));
    expect(canonicalIp('10.1.2.3')).not.toBe(canonicalIp('::ffff:10.1.2.3'));
    expect(canonicalIp('10.1.2')).toBeUndefined();
  });

  it('checks a value at registration, naming the metadata member', () => {
    expect(checkSubjectRule('subjectDn', 'CN=a,O=b')).toBe('CN=a,O=b');
    expect(() => checkSubjectRule('subjectDn', 'CN')).toThrow(/tls_client_auth_subject_dn is not a distinguished name/);
    expect(() => checkSubjectRule('sanIp', 'lab.example')).toThrow(SubjectRuleError);
    expect(() => checkSubjectRule('sanDns', '')).toThrow(/tls_client_auth_san_dns/);
  });
});
