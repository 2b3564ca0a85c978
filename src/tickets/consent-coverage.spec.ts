import { permissionsOf, type CoveredResource } from './consent-coverage.js';

const glucose: CoveredResource = {
  requestedResourceId: 'patient-1-glucose',
  definition: 'blood-glucose-level',
  maxPermissionDuration: 900,
  scopes: new Set(['read']),
  ticketId: 'ticket-1',
  purpose: 'Follow-up',
};
const read = { name: 'blood-glucose-level:read', definition: 'blood-glucose-level', scope: 'read' };

describe('permissionsOf', () => {
  it('lists, per covering resource, the granted scopes without the definition prefix', () => {
    expect(permissionsOf([read], [glucose], 1234)).toEqual([
      {
        resource_id: 'patient-1-glucose',
        resource_type: 'blood-glucose-level',
        resource_scopes: ['read'],
        ticket_id: 'ticket-1',
        purpose: 'Follow-up',
        exp: 1234,
      },
    ]);
  });

  it('adds the purpose-of-use code a UDAP request matched', () => {
    const [permission] = permissionsOf([read], [{ ...glucose, purposeOfUse: 'urn:oid:2.16.840.1.113883.5.8#TREAT' }], 1234);
    expect(permission.purpose_of_use).toBe('urn:oid:2.16.840.1.113883.5.8#TREAT');
  });
});
