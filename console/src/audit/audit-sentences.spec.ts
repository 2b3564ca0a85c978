import type { ResourceObject } from '../api/documents.js';
import { actorWords, keyOf, namesFromEvents, operationSentence, requestsOf, type Names } from './audit-sentences.js';

const at = '2026-11-25T17:26:03.120Z';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function event(id: number, operation: string, recordType: string, recordId: number, before: object | null, after: object | null, extra = {}): ResourceObject {
  return {
    type: 'audit-event',
    id: String(id),
    attributes: {
      occurredAt: at,
      actor: 'admin-token@127.0.0.1',
      operation,
      recordType,
      recordId: String(recordId),
      before,
      after,
      withdrawnTokens: 0,
      ...extra,
    },
  };
}

const names: Names = new Map<string, Record<string, unknown>>([
  [keyOf('uma-client', '1'), { clientId: 'glucose-app' }],
  [keyOf('purpose', '2'), { name: 'Your doctor follows your blood glucose level' }],
  [keyOf('capability-ticket', '3'), { ticketId: 'T-1', umaClient: '1', purpose: '2' }],
  [keyOf('requested-resource', '4'), { requestedResourceId: 'patient-4711', resourceDefinition: '5' }],
  [keyOf('resource-definition', '5'), { name: 'blood-glucose-level' }],
  [keyOf('scope', '6'), { name: 'read', resourceDefinition: '5' }],
]);

describe('operationSentence', () => {
  it('says what an added ticket is for, naming its client and purpose', () => {
    expect(operationSentence(event(8, 'add', 'capability-ticket', 3, null, { ticketId: 'T-1', umaClient: '1', purpose: '2' }), names)).toBe(
      "added ticket T-1 for client glucose-app with purpose 'Your doctor follows your blood glucose level'",
    );
  });

  it('names the records a combination joins', () => {
    expect(
      operationSentence(event(11, 'add', 'requested-resources-capability-tickets', 9, null, { capabilityTicket: '3', requestedResource: '4' }), names),
    ).toBe('added the combination of ticket T-1 with requested resource patient-4711');
  });

  it('says how many tokens a removal withdrew', () => {
    const removal = event(12, 'remove', 'requested-resources-capability-tickets', 9, { capabilityTicket: '3', requestedResource: '4' }, null, {
      withdrawnTokens: 2,
    });
    expect(operationSentence(removal, names)).toBe(
      'removed the combination of ticket T-1 with requested resource patient-4711, which withdrew 2 active tokens',
    );
  });

  it('lists each changed member from what to what, a relationship by the name of its record, never a bare id', () => {
    const change = event(13, 'replace', 'data-source', 7, { name: 'Glucose API', umaClient: '1' }, { name: 'Glucose API', umaClient: null });
    expect(operationSentence(change, names)).toBe('changed data source Glucose API: uma client from client glucose-app to (none)');
  });

  it('says where an added trust community is and counts its anchors, never printing a certificate', () => {
    const after = { name: 'Community A', communityUri: 'https://community-a.example/udap', anchors: [PEM, PEM], purposesOfUse: [], enabled: true };
    const sentence = operationSentence(event(15, 'add', 'trust-community', 8, null, after), names);
    expect(sentence).toBe('added trust community Community A at https://community-a.example/udap, with 2 certificates as anchors');
  });

  it("words a trust community's disabling, its new anchors and its purposes of use", () => {
    const before = { name: 'Community A', anchors: [PEM], purposesOfUse: [], enabled: true };
    const after = { name: 'Community A', anchors: [`${PEM}\n`], purposesOfUse: ['urn:oid:2.16.840.1.113883.5.8#TREAT'], enabled: false };
    const sentence = operationSentence(event(16, 'replace', 'trust-community', 8, before, after), names);
    expect(sentence).toBe(
      "changed trust community Community A: anchors replaced (1 certificate); purposes of use from any to 'urn:oid:2.16.840.1.113883.5.8#TREAT'; status from enabled to disabled",
    );
    expect(sentence).not.toContain('BEGIN CERTIFICATE');
  });

  it('calls a record it cannot name "removed earlier" rather than showing its id', () => {
    expect(operationSentence(event(14, 'remove', 'scope', 99, null, null), new Map())).toBe('removed a scope removed earlier');
  });
});

describe('requestsOf', () => {
  it('groups the events of one request (one time, one actor) into one entry, in operation order', () => {
    const later = { occurredAt: '2026-11-25T17:27:00.000Z' };
    const events = [
      { ...event(3, 'add', 'purpose', 2, null, { name: 'x' }), attributes: { ...event(3, 'add', 'purpose', 2, null, null).attributes, ...later } },
      event(2, 'add', 'capability-ticket', 3, null, {}),
      event(1, 'add', 'purpose', 2, null, {}),
    ];
    const requests = requestsOf(events);
    expect(requests.map((request) => request.events.map((entry) => entry.id))).toEqual([['3'], ['1', '2']]);
  });
});

describe('namesFromEvents', () => {
  it("takes a removed record's name from the snapshot before its removal", () => {
    const found = namesFromEvents([event(5, 'remove', 'resource-definition', 5, { name: 'heart-rate' }, null)]);
    expect(found.get(keyOf('resource-definition', '5'))).toEqual({ name: 'heart-rate' });
  });
});

describe('actorWords', () => {
  it('reads the admin token and the command line as people say them', () => {
    expect(actorWords('admin-token@127.0.0.1')).toBe('the admin token from 127.0.0.1');
    expect(actorWords('cli:root@host')).toBe('the command line (root@host)');
  });

  it('reads the actors of dynamic registration', () => {
    expect(actorWords('dcr:iat:12@203.0.113.9')).toBe('a client registering itself with initial access token 12 from 203.0.113.9');
    expect(actorWords('dcr:rat:dcr-9fKx@2001:db8::1')).toBe('client dcr-9fKx itself, with its registration access token, from 2001:db8::1');
  });
});
