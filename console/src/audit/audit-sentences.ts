// The audit trail as an administrator reads it (docs/guides/console.md#the-audit-trail): one entry
// per request, each operation a sentence, every related record by the name people know it by.
import type { ResourceObject } from '../api/documents.js';
import { text } from '../api/documents.js';
import { formatDuration } from '../tickets/ticket-sentence.js';

type Snapshot = Record<string, unknown>;

/** A snapshot's attributes and relationship ids (older events kept a resource object). */
export function attributesOf(snapshot: unknown): Snapshot {
  if (!snapshot || typeof snapshot !== 'object') return {};
  const record = snapshot as Snapshot;
  return (record.attributes && typeof record.attributes === 'object' ? record.attributes : record) as Snapshot;
}

/** The relationship members of the snapshots, and the type of record each names. */
export const RELATIONSHIP_TYPES: Record<string, string> = {
  umaClient: 'uma-client',
  purpose: 'purpose',
  capabilityTicket: 'capability-ticket',
  requestedResource: 'requested-resource',
  resourceDefinition: 'resource-definition',
  scope: 'scope',
  dataSource: 'data-source',
};

/** The attribute people know each type's records by. */
const NAMED_BY: Record<string, string> = {
  'uma-client': 'clientId',
  'capability-ticket': 'ticketId',
  'resource-definition': 'name',
  purpose: 'name',
  'data-source': 'name',
  scope: 'name',
  'requested-resource': 'requestedResourceId',
  'initial-access-token': 'name',
  'trust-community': 'name',
};

/** What each type is called in a sentence. */
const NOUN: Record<string, string> = {
  'uma-client': 'client',
  'capability-ticket': 'ticket',
  'resource-definition': 'resource definition',
  purpose: 'purpose',
  'data-source': 'data source',
  scope: 'scope',
  'requested-resource': 'requested resource',
  'requested-resource-scopes': 'scope binding',
  'requested-resources-capability-tickets': 'combination',
  'data-source-resource-definitions': 'service',
  'initial-access-token': 'initial access token',
  'trust-community': 'trust community',
};

/** A record known by its type and id: "uma-client:12". */
export const keyOf = (type: string, id: string) => `${type}:${id}`;

/** What the console knows of records by key: their snapshots (attributes and relationship ids). */
export type Names = Map<string, Snapshot>;

/** The records an event relates to (its snapshots' relationships), by key. */
export function relatedKeys(event: ResourceObject): string[] {
  const keys: string[] = [];
  for (const snapshot of [event.attributes.before, event.attributes.after]) {
    for (const [member, value] of Object.entries(attributesOf(snapshot))) {
      const type = RELATIONSHIP_TYPES[member];
      if (type && (typeof value === 'string' || typeof value === 'number') && value !== '') keys.push(keyOf(type, String(value)));
    }
  }
  return keys;
}

const quoted = (value: string) => `'${value}'`;

/** An id or a name held by a snapshot member, as text (undefined for anything else). */
const idText = (value: unknown): string | undefined => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);

/**
 * A record as a sentence names it: "client glucose-app", "ticket T-1", "purpose 'Your doctor…'",
 * "scope read of blood-glucose-level"; one of unknown name "a removed client" (never a bare id).
 */
export function nameOf(type: string, id: string, names: Names, depth = 0): string {
  const noun = NOUN[type] ?? type.replace(/-/g, ' ');
  const snapshot = names.get(keyOf(type, id));
  if (!snapshot) return `a ${noun} removed earlier`;
  const attribute = NAMED_BY[type];
  const own = attribute ? snapshot[attribute] : undefined;
  const ref = (member: string) => {
    const value = snapshot[member];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  };
  const named = (member: string) => {
    const value = ref(member);
    return value === undefined || depth > 1 ? undefined : nameOf(RELATIONSHIP_TYPES[member], value, names, depth + 1);
  };
  switch (type) {
    case 'purpose':
      return `purpose ${quoted(idText(own) ?? '')}`;
    case 'scope': {
      const definition = ref('resourceDefinition');
      const definitionName = definition ? names.get(keyOf('resource-definition', definition))?.name : undefined;
      return `scope ${idText(own) ?? ''}${typeof definitionName === 'string' ? ` of ${definitionName}` : ''}`;
    }
    case 'requested-resource-scopes':
      return `the binding of ${named('scope') ?? 'a scope'} to ${named('requestedResource') ?? 'a requested resource'}`;
    case 'requested-resources-capability-tickets':
      return `the combination of ${named('capabilityTicket') ?? 'a ticket'} with ${named('requestedResource') ?? 'a requested resource'}`;
    case 'data-source-resource-definitions':
      return `${named('dataSource') ?? 'a data source'}'s service of ${named('resourceDefinition') ?? 'a resource definition'}`;
    default:
      return typeof own === 'string' && own !== '' ? `${noun} ${own}` : `a ${noun}`;
  }
}

/** A member's name as words: "allowedScopes" → "allowed scopes". */
function words(member: string): string {
  return member.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A value in a sentence: a related record by its name, nothing as "(none)", text quoted. */
function valueWords(member: string, value: unknown, names: Names): string {
  if (value === null || value === undefined || value === '') return '(none)';
  const type = RELATIONSHIP_TYPES[member];
  if (type && (typeof value === 'string' || typeof value === 'number')) return nameOf(type, String(value), names);
  if (member === 'maxPermissionDuration' && typeof value === 'number') return formatDuration(value);
  // A trust community's anchors are PEM certificates: counted, never printed whole.
  if (member === 'anchors' && Array.isArray(value)) return certificates(value.length);
  if (member === 'purposesOfUse' && Array.isArray(value)) return value.length === 0 ? 'any' : quoted(value.join(' '));
  if (member === 'enabled' && typeof value === 'boolean') return value ? 'enabled' : 'disabled';
  return typeof value === 'string' ? quoted(value) : JSON.stringify(value);
}

/** "1 certificate", "2 certificates". */
const certificates = (count: number) => `${count} certificate${count === 1 ? '' : 's'}`;

/** What a member's change is called: a community's `enabled` is its status. */
const memberWords = (member: string) => (member === 'enabled' ? 'status' : words(member));

/** The changed members of a replace, each "allowed scopes from 'a' to 'b'" (unchanged ones left out). */
export function changedMembers(event: ResourceObject, names: Names): string[] {
  const before = attributesOf(event.attributes.before);
  const after = attributesOf(event.attributes.after);
  const members = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return members
    .filter((member) => !same(before[member], after[member]))
    .map((member) => {
      const from = valueWords(member, before[member], names);
      const to = valueWords(member, after[member], names);
      // Anchors replaced by as many others read the same counted: say they were replaced.
      return from === to ? `${memberWords(member)} replaced (${to})` : `${memberWords(member)} from ${from} to ${to}`;
    });
}

/** What an added record holds beyond its name: "for client glucose-app, purpose '…', at most 30 min". */
function addedDetails(type: string, snapshot: Snapshot, names: Names): string {
  const parts: string[] = [];
  const umaClient = idText(snapshot.umaClient);
  const purpose = idText(snapshot.purpose);
  const definition = idText(snapshot.resourceDefinition);
  if (type === 'capability-ticket' && umaClient)
    parts.push(`for ${nameOf('uma-client', umaClient, names)}${purpose ? ` with ${nameOf('purpose', purpose, names)}` : ''}`);
  if (type === 'requested-resource' && umaClient) parts.push(`for ${nameOf('uma-client', umaClient, names)}`);
  if (type === 'requested-resource-scopes' && purpose) parts.push(`for ${nameOf('purpose', purpose, names)}`);
  if (type === 'requested-resource' && definition) parts.push(`of ${nameOf('resource-definition', definition, names)}`);
  if (type === 'requested-resource' && typeof snapshot.maxPermissionDuration === 'number')
    parts.push(`at most ${formatDuration(snapshot.maxPermissionDuration)}`);
  if (type === 'data-source' && typeof snapshot.resourceUri === 'string') parts.push(`at ${snapshot.resourceUri}`);
  if (type === 'data-source' && umaClient) parts.push(`introspecting as ${nameOf('uma-client', umaClient, names)}`);
  if (type === 'trust-community' && typeof snapshot.communityUri === 'string') parts.push(`at ${snapshot.communityUri}`);
  if (type === 'trust-community' && Array.isArray(snapshot.anchors)) parts.push(`with ${certificates(snapshot.anchors.length)} as anchors`);
  if (type === 'uma-client' && typeof snapshot.allowedScopes === 'string') parts.push(`with allowed scopes ${quoted(snapshot.allowedScopes)}`);
  return parts.length === 0 ? '' : ` ${parts.join(', ')}`;
}

/** "2 active tokens", "1 active token". */
const tokens = (count: number) => `${count} active token${count === 1 ? '' : 's'}`;

/**
 * One operation as a sentence: "added ticket T-1 for client glucose-app with purpose '…'",
 * "removed client glucose-app, which withdrew 2 active tokens", "changed client glucose-app:
 * allowed scopes from '…' to '…'".
 */
export function operationSentence(event: ResourceObject, known: Names): string {
  const type = text(event, 'recordType');
  const id = text(event, 'recordId');
  // The record is named at least by its own snapshot (after the change, or before a removal).
  const own = attributesOf(event.attributes.after ?? event.attributes.before);
  const names = known.has(keyOf(type, id)) || Object.keys(own).length === 0 ? known : new Map(known).set(keyOf(type, id), own);
  const operation = text(event, 'operation');
  const withdrawn = Number(event.attributes.withdrawnTokens ?? 0);
  const record = nameOf(type, id, names);
  const withdrew = withdrawn > 0 ? `, which withdrew ${tokens(withdrawn)}` : '';
  if (operation === 'add') return `added ${record}${addedDetails(type, attributesOf(event.attributes.after), names)}${withdrew}`;
  if (operation === 'remove') return `removed ${record}${withdrew}`;
  const changed = changedMembers(event, names);
  return `changed ${record}${changed.length > 0 ? `: ${changed.join('; ')}` : ' (nothing that the trail shows)'}${withdrew}`;
}

/** The events of one request: one transaction, so one time and one actor (events in id order). */
export type Request = { events: ResourceObject[]; occurredAt: string; actor: string };

/**
 * The events of a page (newest first) grouped by request: the events of one request share its
 * transaction's time and actor, and follow each other.
 */
export function requestsOf(events: ResourceObject[]): Request[] {
  const requests: Request[] = [];
  for (const event of events) {
    const occurredAt = text(event, 'occurredAt');
    const actor = text(event, 'actor');
    const last = requests[requests.length - 1];
    if (last && last.occurredAt === occurredAt && last.actor === actor) last.events.unshift(event);
    else requests.push({ events: [event], occurredAt, actor });
  }
  return requests;
}

/** What the snapshots of these events say of the records they are about (the newest first wins). */
export function namesFromEvents(events: ResourceObject[], names: Names = new Map()): Names {
  for (const event of events) {
    const key = keyOf(text(event, 'recordType'), text(event, 'recordId'));
    if (names.has(key)) continue;
    const snapshot = attributesOf(event.attributes.after ?? event.attributes.before);
    if (Object.keys(snapshot).length > 0) names.set(key, snapshot);
  }
  return names;
}

/** "admin token from 127.0.0.1" out of the actor the server recorded. */
export function actorWords(actor: string): string {
  const admin = /^admin-token@(.*)$/.exec(actor);
  if (admin) return `the admin token from ${admin[1]}`;
  const cli = /^cli:(.*)$/.exec(actor);
  if (cli) return `the command line (${cli[1]})`;
  // Dynamic registration (docs/guides/dynamic-registration.md): the address is the last '@', as client ids hold none.
  const registering = /^dcr:iat:(\d+)@(.*)$/.exec(actor);
  if (registering) return `a client registering itself with initial access token ${registering[1]} from ${registering[2]}`;
  const managing = /^dcr:rat:([^@]+)@(.*)$/.exec(actor);
  if (managing) return `client ${managing[1]} itself, with its registration access token, from ${managing[2]}`;
  return actor;
}
