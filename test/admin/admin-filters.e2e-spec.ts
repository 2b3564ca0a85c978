import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { AdminRecordsService } from '../../src/admin/admin-records.service.js';
import { listStatements, type Field } from '../../src/admin/records/collection.js';
import { add, getAdmin, patchAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { bodyOf, type JsonApiResource, type JsonApiDocument, type JsonApiErrors } from '../support/bodies.js';

let server: TestApp;
// A prefix no other test's records start with, so searches and totals are exact.
const tag = `f${randomBytes(4).toString('hex')}`;
const ids: Record<string, string> = {};

const client = (lid: string, clientId: string, clientName: string) => ({
  ...add('uma-client', { lid, attributes: { clientId, clientName, allowedScopes: 'read', clientSecret: 'a-long-enough-secret-0123456789' } }),
});

beforeAll(async () => {
  server = await startTestApp();
  const created = await patchAdmin(server, [
    client('a', `${tag}-glucose-app`, 'Glucose App'),
    client('b', `${tag}-heart-app`, `${tag.toUpperCase()} Cardio`),
    client('c', `${tag}-zeta`, 'Zeta 100%_done'),
    add('purpose', { lid: 'p', attributes: { name: `${tag} your doctor follows you` } }),
    add('capability-ticket', {
      attributes: { ticketId: `${tag}-T-1`, ticketName: 'first' },
      relationships: { purpose: { data: { type: 'purpose', lid: 'p' } }, umaClient: { data: { type: 'uma-client', lid: 'a' } } },
    }),
    add('capability-ticket', {
      attributes: { ticketId: `${tag}-T-2`, ticketName: 'second' },
      relationships: { purpose: { data: { type: 'purpose', lid: 'p' } }, umaClient: { data: { type: 'uma-client', lid: 'a' } } },
    }),
    add('capability-ticket', {
      attributes: { ticketId: `${tag}-T-3`, ticketName: 'first' },
      relationships: { purpose: { data: { type: 'purpose', lid: 'p' } }, umaClient: { data: { type: 'uma-client', lid: 'b' } } },
    }),
  ]);
  expect(created.status).toBe(200);
  const data = (created.body as { data: { type: string; id: string; attributes: Record<string, string> } }[]).map((result) => result.data);
  for (const record of data) ids[record.attributes.clientId ?? record.attributes.ticketId ?? record.type] = record.id;
});

afterAll(() => server.close());

const listOf = (response: { body: unknown }) => bodyOf<JsonApiDocument<JsonApiResource[]>>(response);
const idsOf = (response: { body: unknown }) => listOf(response).data.map((record) => record.id);

describe('filters on GET /admin/<type>', () => {
  it('matches an attribute exactly', async () => {
    const response = await getAdmin(server, `/admin/uma-client?filter[clientId]=${tag}-glucose-app`);
    expect(response.status).toBe(200);
    expect(idsOf(response)).toEqual([ids[`${tag}-glucose-app`]]);
    expect(listOf(response).meta?.total).toBe(1);
    expect(listOf(await getAdmin(server, `/admin/uma-client?filter[clientId]=${tag}-glucose`)).data).toEqual([]);
  });

  it("matches a relationship by the related record's id", async () => {
    const response = await getAdmin(server, `/admin/capability-ticket?filter[umaClient]=${ids[`${tag}-glucose-app`]}&sort=ticketId`);
    expect(idsOf(response)).toEqual([ids[`${tag}-T-1`], ids[`${tag}-T-2`]]);
  });

  it('combines several filters with AND', async () => {
    const response = await getAdmin(server, `/admin/capability-ticket?filter[umaClient]=${ids[`${tag}-glucose-app`]}&filter[ticketName]=first`);
    expect(idsOf(response)).toEqual([ids[`${tag}-T-1`]]);
  });

  it('accepts a comma-separated list of ids for a relationship', async () => {
    const response = await getAdmin(server, `/admin/capability-ticket?filter[umaClient]=${ids[`${tag}-glucose-app`]},${ids[`${tag}-heart-app`]}`);
    expect(listOf(response).meta?.total).toBe(3);
  });

  it('searches the human names by prefix, whatever the case', async () => {
    const byId = await getAdmin(server, `/admin/uma-client?filter[search]=${tag.toUpperCase()}-G`);
    expect(idsOf(byId)).toEqual([ids[`${tag}-glucose-app`]]);
    // The heart app's name starts with the tag too: it matches once.
    const byEither = await getAdmin(server, `/admin/uma-client?filter[search]=${tag}&sort=clientId`);
    expect(idsOf(byEither)).toEqual([ids[`${tag}-glucose-app`], ids[`${tag}-heart-app`], ids[`${tag}-zeta`]]);
    const tickets = await getAdmin(server, `/admin/capability-ticket?filter[search]=${tag}-t-`);
    expect(listOf(tickets).meta?.total).toBe(3);
  });

  it('does not match in the middle of a name', async () => {
    expect(idsOf(await getAdmin(server, '/admin/uma-client?filter[search]=glucose-app&page[size]=100'))).not.toContain(ids[`${tag}-glucose-app`]);
    expect(listOf(await getAdmin(server, `/admin/purpose?filter[search]=doctor`)).data.some((record) => record.id === ids.purpose)).toBe(false);
  });

  it('takes % and _ in a search literally', async () => {
    await patchAdmin(server, [client('d', `${tag}-zetb`, 'Zeta 100xxdone')]);
    const response = await getAdmin(server, `/admin/uma-client?filter[search]=${encodeURIComponent('zeta 100%_')}`);
    expect(listOf(response).data.map((record) => record.attributes.clientName)).toEqual(['Zeta 100%_done']);
  });

  it('sorts ascending and descending, and keeps filters and sort in the page links', async () => {
    const ascending = await getAdmin(server, `/admin/uma-client?filter[search]=${tag}&sort=clientName&page[size]=2`);
    expect(listOf(ascending).data.map((record) => record.attributes.clientName)).toEqual([`${tag.toUpperCase()} Cardio`, 'Glucose App']);
    expect(listOf(ascending).links?.next).toBe(`/admin/uma-client?filter[search]=${tag}&sort=clientName&page[number]=2&page[size]=2`);
    const descending = await getAdmin(server, `/admin/uma-client?filter[search]=${tag}&sort=-clientId&page[size]=1`);
    expect(listOf(descending).data[0].attributes.clientId).toBe(`${tag}-zetb`);
    const next = await getAdmin(server, listOf(ascending).links?.next as string);
    expect((listOf(next).data[0].attributes.clientName as string).startsWith('Zeta')).toBe(true);
  });

  it('combines with include', async () => {
    const response = await getAdmin(server, `/admin/capability-ticket?filter[ticketId]=${tag}-T-3&include=umaClient,purpose`);
    expect(idsOf(response)).toEqual([ids[`${tag}-T-3`]]);
    expect(
      listOf(response)
        .included?.map((record) => record.type)
        .sort(),
    ).toEqual(['purpose', 'uma-client']);
  });

  it('lists the audit trail newest first', async () => {
    const response = await getAdmin(server, '/admin/audit-event?sort=-id&page[size]=5');
    const eventIds = idsOf(response).map(Number);
    expect(eventIds).toHaveLength(5);
    expect(eventIds).toEqual([...eventIds].sort((a, b) => b - a));
  });

  it('accepts every member of every type it offers (a new attribute is filterable and sortable without more code)', async () => {
    const records = server.app.get(AdminRecordsService);
    for (const type of records.types) {
      for (const field of records.handlerForUrl(type).collection.fields) {
        const query = [field.filter ? `filter[${field.name}]=${encodeURIComponent(sampleOf(field))}` : '', field.sort ? `sort=-${field.name}` : '']
          .filter(Boolean)
          .join('&');
        const response = await getAdmin(server, `/admin/${type}?${query}`);
        expect([type, field.name, response.status]).toEqual([type, field.name, 200]);
      }
    }
  });
});

describe('refused collection queries', () => {
  it.each([
    ['an unknown filter member', '/admin/uma-client?filter[colour]=red', 'filter[colour]', 'colour'],
    ['an unknown sort member', '/admin/uma-client?sort=-colour', 'sort', 'colour'],
    ['a write-only attribute as filter', '/admin/uma-client?filter[clientSecret]=x', 'filter[clientSecret]', 'clientSecret'],
    ['a search on a type without human names', '/admin/scope?filter[search]=re', 'filter[search]', 'search'],
    ['a relationship id that is not an integer', '/admin/capability-ticket?filter[umaClient]=abc', 'filter[umaClient]', 'filter[umaClient]'],
    ['a relationship id beyond 32 bits', '/admin/capability-ticket?filter[umaClient]=2147483648', 'filter[umaClient]', 'filter[umaClient]'],
    [
      'an integer attribute that is not a number',
      '/admin/requested-resource?filter[maxPermissionDuration]=long',
      'filter[maxPermissionDuration]',
      'maxPermissionDuration',
    ],
    [
      'a boolean that is neither true nor false',
      '/admin/uma-client?filter[dpopBoundAccessTokens]=yes',
      'filter[dpopBoundAccessTokens]',
      'dpopBoundAccessTokens',
    ],
    ['a NUL in a value', '/admin/uma-client?filter[clientId]=a%00b', 'filter[clientId]', 'filter[clientId]'],
    ['a filter given twice', '/admin/uma-client?filter[clientId]=a&filter[clientId]=b', 'filter[clientId]', 'filter[clientId]'],
    ['a filter without a member', '/admin/uma-client?filter=a', 'filter', 'filter'],
    ['an empty sort member', '/admin/uma-client?sort=clientId,', 'sort', 'sort'],
    ['a search longer than 100 characters', `/admin/uma-client?filter[search]=${'a'.repeat(101)}`, 'filter[search]', '100'],
  ])('answers 400 naming the parameter for %s', async (_case, path, parameter, named) => {
    const response = await getAdmin(server, path);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/vnd.api+json');
    expect(bodyOf<JsonApiErrors>(response).errors[0]).toMatchObject({ status: '400', code: 'malformed', source: { parameter } });
    expect(bodyOf<JsonApiErrors>(response).errors[0].detail).toContain(named);
  });
});

describe('any filter value', () => {
  it('is answered 200 or 400, never a server error, whatever the kind of member and the bytes', async () => {
    const records = server.app.get(AdminRecordsService);
    const values = [...fc.sample(fc.string({ unit: 'binary', maxLength: 40 }), 5), '\u0000', ' 1', '1,', '-1', '0x10', '１２', 'null', 'true\n'];
    const raw = ['%FF', '%E0%A4%A', '%00', '%', '%%31'];
    for (const type of records.types) {
      const { collection } = records.handlerForUrl(type);
      // One member of each kind per type: the value is read by kind.
      const kinds = new Map(collection.fields.filter((field) => field.filter).map((field) => [field.kind, field.name]));
      const members = [...kinds.values(), 'search'];
      for (const name of members) {
        for (const value of [...values.map(encodeURIComponent), ...raw]) {
          const response = await getAdmin(server, `/admin/${type}?filter[${name}]=${value}&page[size]=1`);
          expect([type, name, value, [200, 400].includes(response.status)]).toEqual([type, name, value, true]);
        }
      }
    }
  });
});

describe('indexes behind the filters', () => {
  it('serves every filter and search of every type with an index that starts with its column, never a sequential scan', async () => {
    const records = server.app.get(AdminRecordsService);
    const unindexed: string[] = [];
    for (const type of records.types) {
      const { collection } = records.handlerForUrl(type);
      for (const field of collection.fields.filter((candidate) => candidate.filter)) {
        if (!(await servedByIndex(type, field.name, sampleOf(field), [field.expression]))) unindexed.push(`${type} filter[${field.name}]`);
      }
      if (collection.search.length > 0 && !(await servedByIndex(type, 'search', 'ab', collection.search, true))) unindexed.push(`${type} filter[search]`);
    }
    expect(unindexed).toEqual([]);
  });

  it('notices a filter whose index is missing, or whose column is not the first of the index used', async () => {
    const runner = server.dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query('DROP INDEX "IDX_purpose_name"');
      await runner.query('DROP INDEX "IDX_scope_name"');
      await runner.query('DROP INDEX "IDX_client_search_client_name"');
      // purpose.name has no other index: a sequential scan. scope.name is the second column of
      // the unique (resource_definition_id, name) index: a full scan of that index, refused too.
      expect(await servedByIndex('purpose', 'name', 'x', ['t."name"'], false, runner)).toBe(false);
      expect(await servedByIndex('scope', 'name', 'x', ['t."name"'], false, runner)).toBe(false);
      expect(await servedByIndex('scope', 'resourceDefinition', '1', ['t."resource_definition_id"'], false, runner)).toBe(true);
      expect(await servedByIndex('uma-client', 'search', 'ab', ['c.client_id', 'c.client_name'], true, runner)).toBe(false);
      expect(await servedByIndex('resource-definition', 'search', 'ab', ['t."name"'], true, runner)).toBe(true);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});

function sampleOf(field: Field): string {
  return { text: 'x', 'long-text': 'x', integer: '1', boolean: 'true', id: '1', timestamp: '' }[field.kind];
}

type Runner = ReturnType<TestApp['dataSource']['createQueryRunner']>;
type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] };

/**
 * EXPLAIN of the count `list` runs for one filter, with sequential scans priced out: the filter
 * is served when the plan holds no sequential scan and, for each filtered column, an index whose
 * first key is that column (for a search: the indexed prefix expression of it).
 */
async function servedByIndex(type: string, name: string, value: string, expressions: string[], search = false, given?: Runner): Promise<boolean> {
  const { collection } = server.app.get(AdminRecordsService).handlerForUrl(type);
  const { count } = listStatements(collection, 'SELECT 1', { offset: 0, limit: 20, filters: new Map([[name, value]]), sort: [] });
  const runner = given ?? server.dataSource.createQueryRunner();
  if (!given) await runner.startTransaction();
  try {
    await runner.query('SET LOCAL enable_seqscan = off');
    const [
      {
        'QUERY PLAN': [{ Plan: plan }],
      },
    ] = (await runner.query(`EXPLAIN (FORMAT JSON) ${count.sql}`, count.parameters)) as { 'QUERY PLAN': { Plan: PlanNode }[] }[];
    const nodes = flatten(plan);
    if (nodes.some((node) => node['Node Type'] === 'Seq Scan')) return false;
    const names = nodes.map((node) => node['Index Name']).filter((index): index is string => Boolean(index));
    const keys = (await runner.query("SELECT pg_get_indexdef(c.oid, 1, true) AS key FROM pg_class c WHERE c.relname = ANY($1) AND c.relkind = 'i'", [
      names,
    ])) as { key: string }[];
    const leading = keys.map(({ key }) => key.replace(/"/g, ''));
    return expressions.every((expression) => {
      const column = expression.replace(/^\w+\./, '').replace(/"/g, '');
      return leading.some((key) => (search ? key.startsWith('lower(') && key.includes(`(${column}`) : key === column));
    });
  } finally {
    if (!given) {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}
