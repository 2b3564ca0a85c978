import { createHash } from 'node:crypto';
import request from 'supertest';
import { patchAdmin } from '../support/admin.js';
import { eventually } from '../support/processes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { askPermission, registeredResource, umaWorld } from '../support/uma.js';
import { bodyOf, type OAuthErrorBody, type PermissionTicketBody } from '../support/bodies.js';

let server: TestApp;

beforeAll(async () => {
  server = await startTestApp({ PERMISSION_TICKET_TTL: '120' });
});

afterAll(() => server.close());

describe('the permission endpoint', () => {
  it('answers 201 with an opaque ticket of at least 128 bits, stored only hashed with its client, permissions and expiry', async () => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world);
    const response = await askPermission(server, world.pat, { resource_id: id, resource_scopes: ['read'] });
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = bodyOf<PermissionTicketBody>(response);
    expect(Object.keys(body)).toEqual(['ticket']);
    const ticket: string = body.ticket;
    expect(ticket).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(ticket, 'base64url').length).toBeGreaterThanOrEqual(16);
    const rows: { ticket_hash: string; permissions: unknown; client_id: number; ttl: number }[] = await server.dataSource.query(
      `SELECT ticket_hash, permissions, client_id, extract(epoch FROM expires_at - date_created)::int AS ttl FROM permission_ticket WHERE client_id = $1`,
      [world.rs.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].ticket_hash).toBe(createHash('sha256').update(ticket).digest('hex'));
    expect(JSON.stringify(rows[0])).not.toContain(ticket);
    expect(rows[0].permissions).toEqual([{ resource_id: id, resource_scopes: ['read'], resource_type: world.definitionName }]);
    // PERMISSION_TICKET_TTL=120 in this suite.
    expect(rows[0].ttl).toBeGreaterThanOrEqual(119);
    expect(rows[0].ttl).toBeLessThanOrEqual(121);
  });

  it('accepts an array of permissions, and empty resource_scopes', async () => {
    const world = await umaWorld(server);
    const first = await registeredResource(server, world);
    const second = await registeredResource(server, world);
    const response = await askPermission(server, world.pat, [
      { resource_id: first, resource_scopes: [] },
      { resource_id: second, resource_scopes: ['read', 'write'] },
    ]);
    expect(response.status).toBe(201);
  });

  it('issues a new ticket every time', async () => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world);
    const [a, b] = await Promise.all([1, 2].map(() => askPermission(server, world.pat, { resource_id: id, resource_scopes: ['read'] })));
    expect(bodyOf<PermissionTicketBody>(a).ticket).not.toBe(bodyOf<PermissionTicketBody>(b).ticket);
  });

  it.each([
    ['an empty array', []],
    ['more than 20 permissions', 'MANY'],
    ['a resource named twice', 'TWICE'],
    ['no resource_id', { resource_scopes: ['read'] }],
    ['no resource_scopes', 'NO_SCOPES'],
    ['resource_scopes not an array', 'SCOPES_STRING'],
    ['a string body', 'just text'],
  ])('answers 400 invalid_request for %s', async (_, shape) => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world);
    const bodies: Record<string, unknown> = {
      MANY: Array.from({ length: 21 }, (_, index) => ({ resource_id: `${id}-${index}`, resource_scopes: [] })),
      TWICE: [
        { resource_id: id, resource_scopes: ['read'] },
        { resource_id: id, resource_scopes: ['write'] },
      ],
      NO_SCOPES: { resource_id: id },
      SCOPES_STRING: { resource_id: id, resource_scopes: 'read' },
    };
    const response = await askPermission(server, world.pat, typeof shape === 'string' && shape in bodies ? bodies[shape] : shape);
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_request');
    expect(await countTickets(world.rs.id)).toBe(0);
  });

  it("answers 400 invalid_resource_id for an unknown resource and for another client's", async () => {
    const world = await umaWorld(server);
    const other = await umaWorld(server);
    const theirs = await registeredResource(server, other);
    for (const id of ['no-such-resource', theirs]) {
      const response = await askPermission(server, world.pat, { resource_id: id, resource_scopes: ['read'] });
      expect(response.status).toBe(400);
      expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_resource_id');
    }
  });

  it("answers 400 invalid_resource_id once the resource's type is no longer served by the client's data sources", async () => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world);
    await patchAdmin(server, [{ op: 'remove', path: `/data-source-resource-definitions/${world.dataSource.pairs[0]}` }]).expect(200);
    const response = await eventually(async () => {
      const answer = await askPermission(server, world.pat, { resource_id: id, resource_scopes: ['read'] });
      return answer.status === 400 ? answer : undefined;
    }, 1_000);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_resource_id');
  });

  it('answers 400 invalid_scope for a scope not registered for the resource', async () => {
    const world = await umaWorld(server);
    const id = await registeredResource(server, world, ['read']);
    const response = await askPermission(server, world.pat, [{ resource_id: id, resource_scopes: ['read', 'write'] }]);
    expect(response.status).toBe(400);
    expect(bodyOf<OAuthErrorBody>(response).error).toBe('invalid_scope');
    expect(await countTickets(world.rs.id)).toBe(0);
  });

  it('needs a PAT', async () => {
    const response = await request(server.url).post('/uma/permission').set('Content-Type', 'application/json').send('{"resource_id":"x","resource_scopes":[]}');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm=/);
  });
});

async function countTickets(client: number): Promise<number> {
  const [{ count }]: { count: number }[] = await server.dataSource.query('SELECT count(*)::int AS count FROM permission_ticket WHERE client_id = $1', [client]);
  return count;
}
