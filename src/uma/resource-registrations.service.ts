import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { OAuthError } from '../oauth/oauth-error.js';
import type { ResourceDescription } from './resource-description.js';

/** A registered resource as the protection API shows it. */
export type RegisteredResource = ResourceDescription & { _id: string };

// Every _id this server hands out has this form; anything else (a NUL, an over-long value) is simply unknown.
const RESOURCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

type Row = { id: number; resource_id: string; type: string; name: string | null; description: string | null; icon_uri: string | null; scopes: string[] };

/**
 * Resource registration (FedAuthz §3, docs/guides/uma.md): each resource belongs to the client
 * that registered it and names (`type`) a resource definition that a data source of that client
 * serves; its scopes are scopes of that definition. Stored in PostgreSQL, read fresh.
 */
@Injectable()
export class ResourceRegistrations {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(clientKey: number, description: ResourceDescription): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      const { definitionId, scopeIds } = await definitionOf(manager, clientKey, description);
      const resourceId = randomBytes(16).toString('base64url');
      const [{ id }]: { id: number }[] = await manager.query(
        'INSERT INTO uma_resource (resource_id, client_id, resource_definition_id, name, description, icon_uri) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
        [resourceId, clientKey, definitionId, description.name ?? null, description.description ?? null, description.icon_uri ?? null],
      );
      await writeScopes(manager, id, scopeIds);
      return resourceId;
    });
  }

  async list(clientKey: number): Promise<string[]> {
    const rows: { resource_id: string }[] = await this.dataSource.query('SELECT resource_id FROM uma_resource WHERE client_id = $1 ORDER BY id', [clientKey]);
    return rows.map((row) => row.resource_id);
  }

  async read(clientKey: number, resourceId: string): Promise<RegisteredResource> {
    if (!RESOURCE_ID.test(resourceId)) throw notFound(resourceId);
    const [row]: Row[] = await this.dataSource.query(
      `SELECT r.id, r.resource_id, d.name AS type, r.name, r.description, r.icon_uri,
              ARRAY(SELECT s.name FROM uma_resource_scope rs JOIN scope s ON s.id = rs.scope_id WHERE rs.uma_resource_id = r.id ORDER BY rs.position) AS scopes
         FROM uma_resource r JOIN resource_definition d ON d.id = r.resource_definition_id
        WHERE r.resource_id = $1 AND r.client_id = $2`,
      [resourceId, clientKey],
    );
    if (!row) throw notFound(resourceId);
    return {
      _id: row.resource_id,
      resource_scopes: row.scopes,
      type: row.type,
      ...(row.name !== null ? { name: row.name } : {}),
      ...(row.description !== null ? { description: row.description } : {}),
      ...(row.icon_uri !== null ? { icon_uri: row.icon_uri } : {}),
    };
  }

  /** Replaces the whole description (members left out are removed). */
  async replace(clientKey: number, resourceId: string, description: ResourceDescription): Promise<void> {
    if (!RESOURCE_ID.test(resourceId)) throw notFound(resourceId);
    await this.dataSource.transaction(async (manager) => {
      const [row]: { id: number }[] = await manager.query('SELECT id FROM uma_resource WHERE resource_id = $1 AND client_id = $2 FOR UPDATE', [
        resourceId,
        clientKey,
      ]);
      if (!row) throw notFound(resourceId);
      const { definitionId, scopeIds } = await definitionOf(manager, clientKey, description);
      await manager.query(
        `UPDATE uma_resource SET resource_definition_id = $2, name = $3, description = $4, icon_uri = $5, version = version + 1, last_updated = now() WHERE id = $1`,
        [row.id, definitionId, description.name ?? null, description.description ?? null, description.icon_uri ?? null],
      );
      await manager.query('DELETE FROM uma_resource_scope WHERE uma_resource_id = $1', [row.id]);
      await writeScopes(manager, row.id, scopeIds);
    });
  }

  async remove(clientKey: number, resourceId: string): Promise<void> {
    if (!RESOURCE_ID.test(resourceId)) throw notFound(resourceId);
    // TypeORM answers a DELETE with [rows, count].
    const [rows]: [unknown[], number] = await this.dataSource.query('DELETE FROM uma_resource WHERE resource_id = $1 AND client_id = $2 RETURNING id', [
      resourceId,
      clientKey,
    ]);
    if (rows.length === 0) throw notFound(resourceId);
  }
}

/** The definition `type` names, served by a data source of the client, and the ids of the scopes, in order. */
async function definitionOf(
  manager: EntityManager,
  clientKey: number,
  description: ResourceDescription,
): Promise<{ definitionId: number; scopeIds: number[] }> {
  const [definition]: { id: number; served: boolean }[] = await manager.query(
    `SELECT d.id, EXISTS (SELECT 1 FROM data_source_resource_definitions x JOIN data_source ds ON ds.id = x.data_source_id
                           WHERE x.resource_definition_id = d.id AND ds.client_id = $2) AS served
       FROM resource_definition d WHERE d.name = $1`,
    [description.type, clientKey],
  );
  if (!definition) throw new OAuthError('invalid_request', `type: no resource definition is named "${description.type}"`);
  if (!definition.served) throw new OAuthError('invalid_request', `type: "${description.type}" is not served by a data source of this client`);
  const scopes: { id: number; name: string }[] = await manager.query('SELECT id, name FROM scope WHERE resource_definition_id = $1 AND name = ANY($2)', [
    definition.id,
    description.resource_scopes,
  ]);
  const byName = new Map(scopes.map((scope) => [scope.name, scope.id]));
  const unknown = description.resource_scopes.find((name) => !byName.has(name));
  if (unknown !== undefined)
    throw new OAuthError('invalid_request', `resource_scopes: "${unknown}" is not a scope of resource definition "${description.type}"`);
  return { definitionId: definition.id, scopeIds: description.resource_scopes.map((name) => byName.get(name)!) };
}

async function writeScopes(manager: EntityManager, resourceKey: number, scopeIds: number[]): Promise<void> {
  await manager.query(
    'INSERT INTO uma_resource_scope (uma_resource_id, scope_id, position) SELECT $1, scope_id, position FROM unnest($2::int[]) WITH ORDINALITY AS t(scope_id, position)',
    [resourceKey, scopeIds],
  );
}

function notFound(resourceId: string): OAuthError {
  return new OAuthError('not_found', `no resource with _id ${JSON.stringify(resourceId.slice(0, 64))} is registered by this client`);
}
