import fc from 'fast-check';
import { OAuthError } from './oauth-error.js';
import { parseTokenRequestBody } from './token-request.js';
import { parseScope } from './scope.js';

const mediaTypes = fc.constantFrom(
  undefined,
  '',
  'application/x-www-form-urlencoded',
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded; charset=latin1',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/json;;;',
);
const name = fc.string({ minLength: 1, maxLength: 20 });
const value = fc.string({ minLength: 1, maxLength: 40 }).filter((text) => !text.includes('\u0000'));
const parameters = fc.dictionary(name, value, { maxKeys: 8 });

function rejectsOnlyWithOAuthErrors(action: () => unknown): void {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).status).toBeGreaterThanOrEqual(400);
    expect((error as OAuthError).status).toBeLessThan(500);
  }
}

describe('parseTokenRequestBody, properties', () => {
  it('only ever rejects with a 4xx OAuthError, for any media type and any bytes', () => {
    fc.assert(
      fc.property(mediaTypes, fc.uint8Array({ maxLength: 300 }), (type, bytes) => {
        rejectsOnlyWithOAuthErrors(() => parseTokenRequestBody(type, Buffer.from(bytes)));
      }),
      { numRuns: 3000 },
    );
  });

  it('only ever rejects with a 4xx OAuthError for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        rejectsOnlyWithOAuthErrors(() => parseTokenRequestBody('application/json', Buffer.from(JSON.stringify(json))));
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips form parameters', () => {
    fc.assert(
      fc.property(parameters, (sent) => {
        const body = new URLSearchParams(sent).toString();
        expect({ ...parseTokenRequestBody('application/x-www-form-urlencoded', Buffer.from(body)) }).toEqual(sent);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips JSON parameters', () => {
    fc.assert(
      fc.property(parameters, (sent) => {
        expect({ ...parseTokenRequestBody('application/json', Buffer.from(JSON.stringify(sent))) }).toEqual(sent);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses any duplicated form parameter but resource', () => {
    fc.assert(
      fc.property(parameters, name, value, value, (sent, repeated, first, second) => {
        fc.pre(repeated !== 'resource');
        const body = `${new URLSearchParams(sent).toString()}&${new URLSearchParams([
          [repeated, first],
          [repeated, second],
        ]).toString()}`;
        expect(() => parseTokenRequestBody('application/x-www-form-urlencoded', Buffer.from(body))).toThrow(OAuthError);
      }),
      { numRuns: 500 },
    );
  });
});

const scopeToken = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz:_-.0123456789'.split('')), minLength: 1, maxLength: 20 });

describe('parseScope, properties', () => {
  it('only ever rejects with invalid_scope', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 100 })), (scope) => {
        try {
          parseScope(scope ?? undefined);
        } catch (error) {
          expect((error as OAuthError).code).toBe('invalid_scope');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips names separated by single spaces', () => {
    fc.assert(
      fc.property(fc.uniqueArray(scopeToken, { minLength: 1, maxLength: 10 }), (names) => {
        expect(parseScope(names.join(' '))).toEqual(names);
      }),
      { numRuns: 1000 },
    );
  });
});
