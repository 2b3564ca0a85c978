import { holdsLetters, parseSmartScope } from './smart-scope.js';

describe('parseSmartScope', () => {
  it.each([
    ['system/Observation.rs', { type: 'Observation', letters: 'rs', query: null, v1: false }],
    ['system/Observation.cruds', { type: 'Observation', letters: 'cruds', query: null, v1: false }],
    ['system/Observation.rs?category=laboratory', { type: 'Observation', letters: 'rs', query: 'category=laboratory', v1: false }],
    ['system/Observation.read', { type: 'Observation', letters: 'rs', query: null, v1: true }],
    ['system/Observation.write', { type: 'Observation', letters: 'cud', query: null, v1: true }],
    ['system/Observation.*', { type: 'Observation', letters: 'cruds', query: null, v1: true }],
    ['system/*.rs', { type: '*', letters: 'rs', query: null, v1: false }],
    ['system/*.read', { type: '*', letters: 'rs', query: null, v1: true }],
  ])('reads %s', (name, expected) => {
    expect(parseSmartScope(name)).toEqual({ name, ...expected });
  });

  it.each([
    ['patient/Observation.rs', /only system\//],
    ['user/Observation.read', /only system\//],
    ['system/Observation.sr', /not a SMART permission/],
    ['system/Observation.rx', /not a SMART permission/],
    ['system/Observation.rr', /not a SMART permission/],
    ['system/Observation.read?category=x', /v1 scope/],
    ['system/*.rs?category=x', /wildcard/],
    ['system/observation.rs', /not a FHIR resource type/],
    ['system/Observation', /system\/<FHIR type>/],
    ['system/Observation.rs?', /empty/],
  ])('refuses %s', (name, reason) => {
    const parsed = parseSmartScope(name) as { unsupported: string };
    expect(parsed.unsupported).toMatch(reason);
  });

  it('leaves plain and resource scopes alone', () => {
    expect(parseSmartScope('uma_protection')).toBeUndefined();
    expect(parseSmartScope('blood-glucose-level:read')).toBeUndefined();
  });

  it('compares letters as sets', () => {
    expect(holdsLetters('cruds', 'rs')).toBe(true);
    expect(holdsLetters('rs', 'r')).toBe(true);
    expect(holdsLetters('rs', 'rs')).toBe(true);
    expect(holdsLetters('r', 'rs')).toBe(false);
  });
});
