import { ApiError, errorObjectsOf } from '../api/api-client.js';
import { fieldOfPointer, formErrorsOf, type PointerLayout } from './form-errors.js';

const TICKET_LAYOUT: PointerLayout = [
  { name: 'purpose' },
  { ticketId: 'ticketId', ticketName: 'ticketName', umaClient: 'client' },
  { maxPermissionDuration: 'maxDuration', requestedResourceId: 'requestedResourceId' },
];

describe('fieldOfPointer', () => {
  it.each([
    ['/1/value/attributes/ticketId', 'ticketId'],
    ['/2/value/attributes/maxPermissionDuration', 'maxDuration'],
    ['/1/value/relationships/umaClient', 'client'],
    ['/1/value/relationships/umaClient/data/id', 'client'],
    ['/0/value/attributes/name', 'purpose'],
  ])('puts %s beside the %s field', (pointer, field) => {
    expect(fieldOfPointer(pointer, TICKET_LAYOUT)).toBe(field);
  });

  it.each([[undefined], [''], ['/7/value/attributes/ticketId'], ['/1/value/attributes/unknown'], ['/data/attributes/ticketId']])(
    'leaves %s to the summary alone',
    (pointer) => {
      expect(fieldOfPointer(pointer, TICKET_LAYOUT)).toBeUndefined();
    },
  );

  it('reads escaped member names (RFC 6901)', () => {
    expect(fieldOfPointer('/0/value/attributes/a~1b~0c', [{ 'a/b~c': 'odd' }])).toBe('odd');
  });
});

describe('errorObjectsOf and formErrorsOf', () => {
  const refused = {
    status: '409',
    code: 'conflict',
    title: 'Conflict',
    detail: 'another capability-ticket already has this ticketId',
    source: { pointer: '/1/value/attributes/ticketId' },
  };
  const notApplied = (index: number) => ({
    errors: [{ status: '424', code: 'not_applied', title: 'Failed Dependency', detail: 'not applied', source: { pointer: `/${index}` } }],
  });

  it('keeps the failing operation\'s errors of a JSON Patch answer, not the "not applied" ones', () => {
    expect(errorObjectsOf([notApplied(0), { errors: [refused] }, notApplied(2)], 409)).toEqual([refused]);
  });

  it('reads a plain errors document, and says the status when the body is not one', () => {
    expect(errorObjectsOf({ errors: [refused] }, 409)).toEqual([refused]);
    expect(errorObjectsOf(undefined, 502)[0].detail).toBe('the server answered 502');
  });

  it('puts the message beside its field and in the summary, linked to that field', () => {
    const errors = formErrorsOf(new ApiError(409, [refused]), TICKET_LAYOUT);
    expect(errors.fields).toEqual({ ticketId: refused.detail });
    expect(errors.summary).toEqual([{ message: refused.detail, field: 'ticketId' }]);
  });

  it('says the server could not be reached when the failure is not an answer', () => {
    expect(formErrorsOf(new TypeError('fetch failed')).summary[0].message).toMatch(/could not be reached/);
  });
});
