import { add, remove } from './documents.js';
import { sentenceOf } from './error-sentences.js';

const conflict = (pointer: string, detail = 'the server says so') => ({ status: '409', code: 'conflict', title: 'Conflict', detail, source: { pointer } });

describe('sentenceOf', () => {
  it('names a taken value with the value sent', () => {
    const operations = [add('uma-client', { clientId: 'glucose-app', clientName: 'Glucose app' })];
    expect(sentenceOf(conflict('/0/value/attributes/clientId', 'another uma-client already has clientId "glucose-app"'), operations)).toBe(
      'Another client already uses the client ID “glucose-app”.',
    );
  });

  it('finds the operation the pointer names among several', () => {
    const operations = [add('purpose', { name: 'Follow-up' }), add('capability-ticket', { ticketId: 'T-1', ticketName: 'One' })];
    expect(sentenceOf(conflict('/1/value/attributes/ticketId'), operations)).toBe('Another ticket already uses the ticket ID “T-1”.');
  });

  it('says a removed record is still in use', () => {
    expect(sentenceOf(conflict('/0/path'), [remove('resource-definition', '4')])).toBe(
      'This resource definition is still referenced by other records: remove those first.',
    );
  });

  it('says a trust community still has clients, with the count the server gave', () => {
    const refused = conflict('/0/path', 'trust-community 4 still has 2 clients: remove them first');
    expect(sentenceOf(refused, [remove('trust-community', '4')])).toBe(
      'This trust community still has 2 clients: remove them first, or disable the community, which stops them at once.',
    );
    const one = conflict('/0/path', 'trust-community 4 still has a client: remove them first');
    expect(sentenceOf(one, [remove('trust-community', '4')])).toBe(
      'This trust community still has a client: remove it first, or disable the community, which stops it at once.',
    );
  });

  it('names a community URI another trust community uses', () => {
    const operations = [add('trust-community', { name: 'B', communityUri: 'https://community-a.example/udap' })];
    expect(sentenceOf(conflict('/0/value/attributes/communityUri'), operations)).toBe(
      'Another trust community already uses the community URI “https://community-a.example/udap”.',
    );
  });

  it('says a link exists already', () => {
    const operations = [add('data-source-resource-definitions', {}, { dataSource: { type: 'data-source', id: '1' } })];
    expect(sentenceOf(conflict('/0/value/relationships/dataSource'), operations)).toBe('This pairing of a data source with a definition exists already.');
  });

  it.each([
    ['another status', { ...conflict('/0/value/attributes/clientId'), status: '422' }],
    ['no pointer', { status: '409', code: 'conflict', title: 'Conflict', detail: 'x' }],
    ['an operation that is not there', conflict('/3/value/attributes/clientId')],
    ['a member it has no name for', conflict('/0/value/attributes/jwksUri')],
    ['a relationship of the wrong type', conflict('/0/value/relationships/umaClient/data/type')],
  ])('leaves the server its words for %s', (_case, error) => {
    expect(sentenceOf(error, [add('uma-client', { clientId: 'glucose-app' })])).toBeUndefined();
  });
});
