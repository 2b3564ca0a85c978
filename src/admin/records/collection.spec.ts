import { AdminError } from '../json-api/admin-error.js';
import { idField, listStatements, type Collection, type ListQuery } from './collection.js';

const collection: Collection = {
  from: 'FROM thing t',
  fields: [
    idField('id', 't.id'),
    { name: 'name', expression: 't.name', kind: 'text', filter: true, sort: true },
    { name: 'size', expression: 't.size', kind: 'integer', filter: true, sort: true },
    { name: 'active', expression: 't.active', kind: 'boolean', filter: true, sort: true },
    idField('owner', 't.owner_id'),
  ],
  search: ['t.name', 't.label'],
};

const query = (filters: Record<string, string>, sort: string[] = []): ListQuery => ({ offset: 40, limit: 20, filters: new Map(Object.entries(filters)), sort });

function refusal(run: () => unknown): { status: number; parameter?: string; detail: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof AdminError) return { status: error.status, parameter: error.parameter, detail: error.detail };
    throw error;
  }
  throw new Error('no refusal');
}

describe('listStatements', () => {
  it('reads every record in id order without filters', () => {
    const { rows, count } = listStatements(collection, 'SELECT t.*', query({}));
    expect(rows).toEqual({ sql: 'SELECT t.* FROM thing t ORDER BY t.id LIMIT $1 OFFSET $2', parameters: [20, 40] });
    expect(count).toEqual({ sql: 'SELECT count(*)::int AS total FROM thing t', parameters: [] });
  });

  it('ANDs the filters, each value read by the kind of its member', () => {
    const { rows } = listStatements(collection, 'SELECT t.*', query({ name: 'a', size: '3', active: 'false', owner: '7,8' }));
    expect(rows.sql).toBe(
      'SELECT t.* FROM thing t WHERE t.name = $1 AND t.size = $2 AND t.active = $3 AND t.owner_id = ANY($4) ORDER BY t.id LIMIT $5 OFFSET $6',
    );
    expect(rows.parameters).toEqual(['a', 3, false, [7, 8], 20, 40]);
  });

  it('searches every human name by the indexed prefix expression, with LIKE characters escaped', () => {
    const { count } = listStatements(collection, 'SELECT 1', query({ search: 'Ab%_\\' }));
    expect(count.sql).toBe(
      'SELECT count(*)::int AS total FROM thing t WHERE (lower(left(t.name, 100)) LIKE lower($1) OR lower(left(t.label, 100)) LIKE lower($1))',
    );
    expect(count.parameters).toEqual(['Ab\\%\\_\\\\%']);
  });

  it('treats an empty search as no search', () => {
    expect(listStatements(collection, 'SELECT 1', query({ search: '' })).count.sql).toBe('SELECT count(*)::int AS total FROM thing t');
  });

  it('sorts by the members named, then by id so that pages never overlap', () => {
    expect(listStatements(collection, 'SELECT 1', query({}, ['-size', 'name'])).rows.sql).toContain('ORDER BY t.size DESC, t.name, t.id LIMIT');
    expect(listStatements(collection, 'SELECT 1', query({}, ['-id'])).rows.sql).toContain('ORDER BY t.id DESC LIMIT');
  });

  it.each([
    [{ colour: 'red' }, [], 'filter[colour]'],
    [{ owner: 'x' }, [], 'filter[owner]'],
    [{ owner: '0' }, [], 'filter[owner]'],
    [{ owner: Array.from({ length: 101 }, (_, index) => index + 1).join(',') }, [], 'filter[owner]'],
    [{ size: '2147483648' }, [], 'filter[size]'],
    [{ active: 'TRUE' }, [], 'filter[active]'],
    [{ name: 'a\u0000' }, [], 'filter[name]'],
    [{ search: 'a'.repeat(101) }, [], 'filter[search]'],
    [{}, ['owner'], 'sort'],
    [{}, ['-colour'], 'sort'],
  ])('refuses %j sorted by %j with a 400 naming %s', (filters, sort, parameter) => {
    expect(refusal(() => listStatements(collection, 'SELECT 1', query(filters as Record<string, string>, sort as string[])))).toMatchObject({
      status: 400,
      parameter,
    });
  });

  it('has no search where the type names none', () => {
    expect(refusal(() => listStatements({ ...collection, search: [] }, 'SELECT 1', query({ search: 'a' })))).toMatchObject({
      status: 400,
      parameter: 'filter[search]',
    });
  });
});
