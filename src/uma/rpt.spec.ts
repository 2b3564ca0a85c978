import { isRpt } from './rpt.js';

describe('isRpt', () => {
  it('recognises UMA permissions (a resource_id, no resource_type)', () => {
    expect(isRpt([{ resource_id: 'abc', resource_scopes: ['read'], exp: 1 }])).toBe(true);
  });

  it('does not take consent-ticket permissions of a client credentials token for an RPT', () => {
    expect(isRpt([{ resource_id: 'glucose-1', resource_type: 'blood-glucose-level', resource_scopes: ['read'], ticket_id: 'T-1', purpose: 'p', exp: 1 }])).toBe(
      false,
    );
  });

  it.each([[undefined], [[]], ['x'], [[null]], [[{ resource_id: 'a' }, { resource_type: 'b' }]]])('answers false for %j', (permissions) => {
    expect(isRpt(permissions)).toBe(false);
  });
});
