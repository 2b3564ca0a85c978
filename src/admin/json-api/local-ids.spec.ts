import { LocalIds } from './local-ids.js';
import type { Operation } from './patch-operation.js';

const related = { data: { type: 'purpose', id: '7' } };

describe('LocalIds.resolve', () => {
  it.each(['__proto__', 'constructor', 'prototype'])('keeps a relationship named %s as an own member, so that it is refused like any unknown one', (name) => {
    const value = JSON.parse(`{"type": "purpose", "relationships": {"${name}": ${JSON.stringify(related)}}}`) as unknown;
    const resolved = new LocalIds().resolve({ op: 'add', type: 'purpose', value }) as { value: { relationships: object } };
    expect(Object.getPrototypeOf(resolved.value.relationships)).toBe(Object.prototype);
    expect(Object.entries(resolved.value.relationships)).toEqual([[name, related]]);
  });

  it('replaces a {type, lid} relationship with the id an earlier add got', () => {
    const ids = new LocalIds();
    const add: Operation = { op: 'add', type: 'purpose', value: { type: 'purpose', lid: 'p' } };
    ids.resolve(add);
    ids.remember(add, '42');
    const value = { type: 'capability-ticket', relationships: { purpose: { data: { type: 'purpose', lid: 'p' } } } };
    const resolved = ids.resolve({ op: 'add', type: 'capability-ticket', value }) as { value: { relationships: unknown } };
    expect(resolved.value.relationships).toEqual({ purpose: { data: { type: 'purpose', id: 42 } } });
  });
});
