import fc from 'fast-check';
import { parseAdminAuthorization } from '../admin-token.guard.js';
import { AdminError } from './admin-error.js';
import { parsePatchOperation } from './patch-operation.js';
import { parseId, parseResourceInput } from './resource-object.js';

const TYPES = new Set(['purpose', 'capability-ticket', 'uma-client']);

function rejectsOnlyWith4xx(action: () => unknown): void {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(AdminError);
    expect((error as AdminError).status).toBeGreaterThanOrEqual(400);
    expect((error as AdminError).status).toBeLessThan(500);
  }
}

// JSON values with hostile keys mixed in.
const hostile = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 2 }),
    fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'type', 'id', 'attributes', 'relationships', 'data', 'op', 'path', 'value', 'x'), tie('value'), {
      maxKeys: 5,
    }),
  ),
})).value;

describe('JSON:API and JSON Patch parsing, properties', () => {
  it('parseId accepts every positive 32-bit integer, as a number or a digit string', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_147_483_647 }), (id) => {
        expect(parseId(id, '/id')).toBe(id);
        expect(parseId(String(id), '/id')).toBe(id);
      }),
    );
  });

  it('parseId refuses everything else with a 400', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ max: 0 }),
          fc.double({ min: 2_147_483_648, max: 1e15 }).map(Math.floor),
          fc.double(),
          fc.string(),
          fc.constant(null),
          fc.boolean(),
        ),
        (value) => {
          fc.pre(!(typeof value === 'string' && /^[1-9]\d{0,9}$/.test(value) && Number(value) <= 2_147_483_647));
          fc.pre(!(typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 2_147_483_647));
          expect(() => parseId(value, '/id')).toThrow(AdminError);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('parseResourceInput only ever rejects with a 4xx, whatever the JSON', () => {
    fc.assert(
      fc.property(hostile, (value) => rejectsOnlyWith4xx(() => parseResourceInput(value, '/value'))),
      { numRuns: 3000 },
    );
  });

  it('parsePatchOperation only ever rejects with a 4xx, whatever the JSON', () => {
    fc.assert(
      fc.property(hostile, (value) => rejectsOnlyWith4xx(() => parsePatchOperation(value, TYPES))),
      { numRuns: 3000 },
    );
  });

  it('round-trips a well-formed add', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), fc.jsonValue(), (type, value) => {
        expect(parsePatchOperation({ op: 'add', path: `/${type}`, value }, TYPES)).toEqual({ op: 'add', type, value });
      }),
    );
  });

  it('round-trips a well-formed resource object', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2_147_483_647 }), fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue()), (id, attributes) => {
        const parsed = parseResourceInput(
          { type: 'purpose', id, attributes, relationships: { purpose: { data: { type: 'purpose', id: String(id) } } } },
          '/value',
        );
        expect(parsed.id).toBe(id);
        expect(Object.fromEntries(parsed.attributes)).toEqual(attributes);
        expect(parsed.relationships.get('purpose')).toEqual({ type: 'purpose', id });
      }),
    );
  });
});

describe('admin token header, properties', () => {
  const token = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 64 });

  it('never throws', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ unit: 'binary', maxLength: 200 })), (header) => {
        parseAdminAuthorization(header ?? undefined);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads the token bare or after Bearer', () => {
    fc.assert(
      fc.property(token, (value) => {
        fc.pre(!/^bearer$/i.test(value));
        expect(parseAdminAuthorization(value)).toBe(value);
        expect(parseAdminAuthorization(`Bearer ${value}`)).toBe(value);
      }),
    );
  });
});
