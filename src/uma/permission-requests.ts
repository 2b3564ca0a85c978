import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OAuthError } from '../oauth/oauth-error.js';
import type { TicketPermission } from './permission-ticket.entity.js';
import { isObject, scopeNamesOf } from './protection-body.js';

type Requested = { resource_id: string; resource_scopes: string[] };

const MAX_PERMISSIONS = 20;

/**
 * The permission endpoint's checks (FedAuthz §4, docs/guides/uma.md): one permission or a
 * non-empty array of at most 20, each resource once, each resource the client's own and still
 * served by its data sources (else invalid_resource_id), each scope registered for it (else
 * invalid_scope). Answers the permissions a ticket records.
 */
@Injectable()
export class PermissionRequests {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async check(clientKey: number, body: unknown): Promise<TicketPermission[]> {
    const requested = parsePermissions(body);
    const rows: { resource_id: string; type: string; scopes: string[]; served: boolean }[] = await this.dataSource.query(
      `SELECT r.resource_id, d.name AS type,
              ARRAY(SELECT s.name FROM uma_resource_scope rs JOIN scope s ON s.id = rs.scope_id WHERE rs.uma_resource_id = r.id ORDER BY rs.position) AS scopes,
              EXISTS (SELECT 1 FROM data_source_resource_definitions x JOIN data_source ds ON ds.id = x.data_source_id
                       WHERE x.resource_definition_id = r.resource_definition_id AND ds.client_id = r.client_id) AS served
         FROM uma_resource r JOIN resource_definition d ON d.id = r.resource_definition_id
        WHERE r.resource_id = ANY($1) AND r.client_id = $2`,
      [requested.map((permission) => permission.resource_id), clientKey],
    );
    const resources = new Map(rows.map((row) => [row.resource_id, row]));
    return requested.map((permission) => {
      const resource = resources.get(permission.resource_id);
      if (!resource || !resource.served) {
        throw new OAuthError(
          'invalid_resource_id',
          `resource_id "${permission.resource_id.slice(0, 64)}" is not a resource of this client that its data sources serve`,
        );
      }
      const unregistered = permission.resource_scopes.find((scope) => !resource.scopes.includes(scope));
      if (unregistered !== undefined)
        throw new OAuthError('invalid_scope', `scope "${unregistered.slice(0, 255)}" is not registered for resource ${permission.resource_id}`);
      return { ...permission, resource_type: resource.type };
    });
  }
}

function parsePermissions(body: unknown): Requested[] {
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0) throw invalid('send one permission or a non-empty array of permissions');
  if (list.length > MAX_PERMISSIONS) throw invalid(`at most ${MAX_PERMISSIONS} permissions per ticket`);
  const permissions = list.map(parsePermission);
  const ids = permissions.map((permission) => permission.resource_id);
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated !== undefined) throw invalid(`resource "${repeated.slice(0, 64)}" is named more than once`);
  return permissions;
}

function parsePermission(value: unknown): Requested {
  if (!isObject(value)) throw invalid('a permission must be a JSON object {"resource_id", "resource_scopes"}');
  const id = value.resource_id;
  if (typeof id !== 'string' || id === '' || id.length > 255) throw invalid('resource_id is required: the _id of a registered resource');
  const scopes = scopeNamesOf(value.resource_scopes);
  if (scopes === undefined) {
    throw invalid('resource_scopes is required: an array (possibly empty) of scope names');
  }
  const repeated = scopes.find((scope, index) => scopes.indexOf(scope) !== index);
  if (repeated !== undefined) throw invalid(`resource_scopes repeats "${repeated.slice(0, 255)}"`);
  return { resource_id: id, resource_scopes: scopes };
}

function invalid(description: string): OAuthError {
  return new OAuthError('invalid_request', description);
}
