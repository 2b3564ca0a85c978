import type { ErrorObject, Operation } from './documents.js';

// What the admin interface's types and members are called in the console's words.
const NOUNS: Record<string, string> = {
  'uma-client': 'client',
  'capability-ticket': 'ticket',
  'resource-definition': 'resource definition',
  scope: 'scope',
  purpose: 'purpose',
  'data-source': 'data source',
  'requested-resource': 'requested resource',
  'requested-resource-scopes': 'binding of a scope to a requested resource',
  'requested-resources-capability-tickets': 'combination of a ticket with a requested resource',
  'data-source-resource-definitions': 'pairing of a data source with a definition',
  'initial-access-token': 'initial access token',
  'trust-community': 'trust community',
};
const MEMBERS: Record<string, string> = {
  clientId: 'client ID',
  clientName: 'client name',
  ticketId: 'ticket ID',
  ticketName: 'ticket name',
  requestedResourceId: 'requested resource ID',
  resourceUri: 'resource URI',
  name: 'name',
  fhirResourceType: 'FHIR resource type',
  communityUri: 'community URI',
};

/** The operation a pointer such as `/2/value/attributes/ticketId` names, and the rest of the pointer. */
function target(error: ErrorObject, operations: Operation[]) {
  const match = /^\/(\d+)(\/.*)?$/.exec(error.source?.pointer ?? '');
  const operation = match ? operations[Number(match[1])] : undefined;
  if (!match || !operation) return undefined;
  const type = /^\/([^/]+)/.exec(operation.path)?.[1] ?? '';
  return { operation, noun: NOUNS[type], rest: match[2] ?? '' };
}

/**
 * The console's sentence for a known refusal of the admin interface (a taken value, a record
 * still in use, one that exists already), found by the error's status and pointer and the
 * operation it points at; undefined for the others, which keep the server's detail.
 */
export function sentenceOf(error: ErrorObject, operations: Operation[]): string | undefined {
  const found = target(error, operations);
  if (!found?.noun || error.status !== '409') return undefined;
  const { operation, noun, rest } = found;
  const member = /^\/value\/attributes\/([^/]+)$/.exec(rest)?.[1];
  if (member && operation.op !== 'remove') {
    const label = MEMBERS[member];
    const value = operation.value.attributes?.[member];
    if (!label) return undefined;
    return typeof value === 'string' ? `Another ${noun} already uses the ${label} “${value}”.` : `Another ${noun} already uses this ${label}.`;
  }
  if (/^\/value\/relationships\/[^/]+$/.test(rest)) return `This ${noun} exists already.`;
  if (rest === '/path' && operation.op === 'remove' && noun === 'trust community') {
    // The server counts them: "trust-community 4 still has 2 clients: remove them first" ("a client" for one).
    const members = /still has (a client|\d+ clients)/.exec(error.detail ?? '')?.[1] ?? 'clients';
    const them = members === 'a client' ? 'it' : 'them';
    return `This trust community still has ${members}: remove ${them} first, or disable the community, which stops ${them} at once.`;
  }
  if (rest === '/path' && operation.op === 'remove') return `This ${noun} is still referenced by other records: remove those first.`;
  return undefined;
}

/** The error objects with the console's sentences in place of the server's details where it has one. */
export function inSentences(errors: ErrorObject[], operations: Operation[]): ErrorObject[] {
  return errors.map((error) => {
    const sentence = sentenceOf(error, operations);
    return sentence ? { ...error, detail: sentence } : error;
  });
}
