import { parseBasicAuthorization } from './basic-credentials.js';

const header = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('parseBasicAuthorization', () => {
  it('reads the id and the secret', () => {
    expect(parseBasicAuthorization(header('my-client:my-secret'))).toEqual({ clientId: 'my-client', clientSecret: 'my-secret' });
  });

  it('form-urldecodes both halves (RFC 6749 §2.3.1)', () => {
    expect(parseBasicAuthorization(header('a%3Ab+c:s%2Bx+y%25'))).toEqual({ clientId: 'a:b c', clientSecret: 's+x y%' });
  });

  it('splits at the first colon only, keeping colons in the secret', () => {
    expect(parseBasicAuthorization(header('id:se:cr:et'))).toEqual({ clientId: 'id', clientSecret: 'se:cr:et' });
  });

  it('accepts the scheme in any case', () => {
    expect(parseBasicAuthorization(`bAsIc ${Buffer.from('a:b').toString('base64')}`)).toEqual({ clientId: 'a', clientSecret: 'b' });
  });

  it.each([
    ['another scheme', `Bearer ${Buffer.from('a:b').toString('base64')}`],
    ['no credentials', 'Basic'],
    ['no colon', header('just-an-id')],
    ['an empty id', header(':secret')],
    ['an empty secret', header('id:')],
    ['invalid base64', 'Basic !!!!'],
    ['unpadded base64', 'Basic YTpi'.slice(0, -1)],
    ['a bad percent escape', header('id:%zz')],
    ['invalid UTF-8', `Basic ${Buffer.from([0x69, 0x3a, 0xff, 0xfe]).toString('base64')}`],
    ['two tokens', `Basic ${Buffer.from('a:b').toString('base64')} extra`],
  ])('refuses %s', (_case, value) => {
    expect(parseBasicAuthorization(value)).toBeUndefined();
  });
});
