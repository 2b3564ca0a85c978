import { OAuthError } from './oauth-error.js';
import { firstDuplicateKey, parseTokenRequestBody } from './token-request.js';

const form = 'application/x-www-form-urlencoded';
const json = 'application/json';
const parse = (type: string | undefined, body: string) => parseTokenRequestBody(type, Buffer.from(body));

function refusal(action: () => unknown): OAuthError {
  try {
    action();
  } catch (error) {
    return error as OAuthError;
  }
  throw new Error('expected a refusal');
}

describe('parseTokenRequestBody', () => {
  it('parses a form body with + and percent escapes', () => {
    expect(parse(form, 'grant_type=client_credentials&scope=a+b%3Ac')).toEqual({ grant_type: 'client_credentials', scope: 'a b:c' });
  });

  it('parses a JSON body (the seed request)', () => {
    expect(parse(`${json}; charset=utf-8`, '{"grant_type":"client_credentials","scope":"read"}')).toEqual({
      grant_type: 'client_credentials',
      scope: 'read',
    });
  });

  it('treats empty values as missing', () => {
    expect(parse(form, 'grant_type=&scope=read')).toEqual({ scope: 'read' });
  });

  it.each([
    ['a duplicated form parameter', form, 'scope=a&scope=b'],
    ['a duplicated JSON member', json, '{"scope":"a","scope":"b"}'],
    ['a bad percent escape', form, 'scope=%E0%A4%A'],
    ['malformed JSON', json, '{"scope":'],
    ['a JSON array', json, '["scope"]'],
    ['a non-string JSON value', json, '{"scope":["a"]}'],
    ['a NUL character', form, 'scope=a%00b'],
    ['an unsupported media type', 'text/plain', 'scope=a'],
    ['a non-UTF-8 charset', `${form}; charset=iso-8859-1`, 'scope=a'],
    ['a body without media type', undefined, 'scope=a'],
  ])('refuses %s with invalid_request', (_case, type, body) => {
    const error = refusal(() => parse(type, body));
    expect(error).toBeInstanceOf(OAuthError);
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
  });

  it('does not let __proto__ reach the prototype', () => {
    const parameters = parse(json, '{"__proto__":"x","scope":"a"}');
    expect(Object.getPrototypeOf(parameters)).toBeNull();
    expect(parameters.scope).toBe('a');
  });
});

describe('firstDuplicateKey', () => {
  it('ignores keys of nested objects and strings that look like keys', () => {
    expect(firstDuplicateKey('{"a":{"b":1,"b":2},"c":"\\"a\\":","d":[{"a":1}]}')).toBeUndefined();
  });

  it('finds a repeated top-level key written with escapes', () => {
    expect(firstDuplicateKey('{"scope":"x","\\u0073cope":"y"}')).toBe('scope');
  });
});
