import { OAuthError } from './oauth-error.js';
import { firstDuplicateKey, parseTokenRequestBody, resourcesOf } from './token-request.js';

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

describe('the resource parameter (RFC 8707)', () => {
  it('may be repeated in a form body, keeping every value in order', () => {
    const parameters = parse(form, 'scope=a&resource=https%3A%2F%2Frs1.example&resource=https%3A%2F%2Frs2.example');
    expect(resourcesOf(parameters)).toEqual(['https://rs1.example', 'https://rs2.example']);
    expect(parameters.resource).toBe('https://rs1.example');
  });

  it('is a string or an array of strings in a JSON body', () => {
    expect(resourcesOf(parse(json, '{"resource":"https://rs1.example"}'))).toEqual(['https://rs1.example']);
    expect(resourcesOf(parse(json, '{"resource":["https://rs1.example","https://rs2.example"]}'))).toEqual(['https://rs1.example', 'https://rs2.example']);
  });

  it('is absent when not given or empty', () => {
    expect(resourcesOf(parse(form, 'scope=a&resource='))).toEqual([]);
    expect(resourcesOf(parse(json, '{"resource":[]}'))).toEqual([]);
    expect(parse(form, 'scope=a&resource=').resource).toBeUndefined();
  });

  it.each([
    ['a JSON number', '{"resource":1}'],
    ['a JSON array holding a number', '{"resource":["https://rs.example",2]}'],
    ['a JSON member given twice', '{"resource":"https://a.example","resource":"https://b.example"}'],
  ])('refuses %s with invalid_request', (_case, body) => {
    expect(refusal(() => parse(json, body)).code).toBe('invalid_request');
  });

  it('refuses a NUL character in any resource value', () => {
    expect(refusal(() => parse(form, 'resource=https%3A%2F%2Fa.example&resource=x%00')).code).toBe('invalid_request');
  });

  it('leaves every other parameter single-valued', () => {
    expect(refusal(() => parse(form, 'resource=https%3A%2F%2Fa.example&scope=a&scope=b')).code).toBe('invalid_request');
  });
});

describe('the number of resource parameters', () => {
  it('is at most ten', () => {
    const body = Array.from({ length: 11 }, (_, index) => `resource=urn%3Ars%3A${index}`).join('&');
    expect(refusal(() => parse(form, body)).code).toBe('invalid_request');
    expect(resourcesOf(parse(form, body.split('&').slice(0, 10).join('&')))).toHaveLength(10);
  });
});
