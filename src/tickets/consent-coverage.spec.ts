import { decideCoverage, permissionsOf, type CoveredResource } from './consent-coverage.js';

const glucose: CoveredResource = {
  requestedResourceId: 'patient-1-glucose',
  definition: 'blood-glucose-level',
  maxPermissionDuration: 900,
  scopes: new Set(['read']),
  ticketId: 'ticket-1',
  purpose: 'Follow-up',
};
const weight: CoveredResource = { ...glucose, requestedResourceId: 'patient-1-weight', definition: 'weight', scopes: new Set(['read', 'write']) };
const read = { name: 'blood-glucose-level:read', definition: 'blood-glucose-level', scope: 'read' };

describe('decideCoverage', () => {
  it('grants scopes bound to a held requested resource, listing each covering resource once', () => {
    const weightRead = { name: 'weight:read', definition: 'weight', scope: 'read' };
    const weightWrite = { name: 'weight:write', definition: 'weight', scope: 'write' };
    expect(decideCoverage([read, weightRead, weightWrite], [glucose, weight])).toEqual({ granted: true, covering: [glucose, weight] });
  });

  it('names the resource type when no ticket covers it', () => {
    expect(decideCoverage([read], [weight])).toEqual({ granted: false, missing: expect.stringContaining('resource type "blood-glucose-level"') });
  });

  it('names the scope when the covering resources do not bind it', () => {
    const write = { name: 'blood-glucose-level:write', definition: 'blood-glucose-level', scope: 'write' };
    expect(decideCoverage([write], [glucose])).toEqual({ granted: false, missing: expect.stringContaining('scope "write" is not bound') });
  });
});

describe('permissionsOf', () => {
  it('lists, per covering resource, the granted scopes without the definition prefix', () => {
    expect(permissionsOf([read], [glucose], 1234)).toEqual([
      { resource_id: 'patient-1-glucose', resource_type: 'blood-glucose-level', resource_scopes: ['read'], ticket_id: 'ticket-1', purpose: 'Follow-up', exp: 1234 },
    ]);
  });
});
