import { expect } from '@jest/globals';
import { asResourceScope, parseScope } from './scope.js';

describe('parseScope', () => {
  it('splits on single spaces and drops repeats, keeping order', () => {
    expect(parseScope('read uma_protection read')).toEqual(['read', 'uma_protection']);
  });

  it.each([[undefined], [' read'], ['read '], ['read  write'], ['read\twrite'], ['caf\u00e9'], ['a"b'], ['a\\b']])('refuses %p with invalid_scope', (value) => {
    expect(() => parseScope(value)).toThrow(expect.objectContaining({ code: 'invalid_scope' }));
  });
});

describe('asResourceScope', () => {
  it('reads <definition>:<scope>', () => {
    expect(asResourceScope('blood-glucose-level:read')).toEqual({
      name: 'blood-glucose-level:read',
      definition: 'blood-glucose-level',
      scope: 'read',
    });
  });

  it('leaves plain scopes alone', () => {
    expect(asResourceScope('uma_protection')).toBeUndefined();
    expect(asResourceScope('a:b:c')).toBeUndefined();
  });
});
