import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { recordAuditEvent } from '../audit/audit-trail.js';
import { isUniqueViolation } from '../common/database-errors.js';
import { allocateId } from '../database/record-ids.js';
import { insertConsentRow } from './consent-record-rows.js';

/** A delegation that breaks a rule (docs/guides/token-exchange.md#delegations): what is wrong, and the member it concerns. */
export class DelegationError extends Error {
  constructor(
    message: string,
    readonly member: 'from' | 'to' | 'scopes',
    readonly kind: 'rule' | 'not-found' | 'conflict' = 'rule',
  ) {
    super(message);
  }
}

/**
 * The rules of a stored delegation, checked in the transaction that wrote it: two distinct data
 * sources, and only resource scopes (`definition:scope`) of definitions `to` serves.
 */
export async function delegationProblem(manager: EntityManager, id: number): Promise<DelegationError | undefined> {
  const [row]: { from_id: number; to_id: number; scopes: string[] }[] = await manager.query(
    'SELECT from_id, to_id, scopes FROM data_source_delegation WHERE id = $1',
    [id],
  );
  if (!row) return undefined;
  if (row.from_id === row.to_id) return new DelegationError('a data-source-delegation links two distinct data sources', 'to');
  if (row.scopes.length === 0) return undefined;
  const served: { name: string }[] = await manager.query(
    `SELECT d.name || ':' || s.name AS name FROM data_source_resource_definitions x
       JOIN resource_definition d ON d.id = x.resource_definition_id JOIN scope s ON s.resource_definition_id = d.id
      WHERE x.data_source_id = $1`,
    [row.to_id],
  );
  const names = new Set(served.map((entry) => entry.name));
  const foreign = row.scopes.find((scope) => !names.has(scope));
  if (foreign === undefined) return undefined;
  return new DelegationError(`scope "${foreign}" of scopes is not a resource scope (definition:scope) of a definition the data source "to" serves`, 'scopes');
}

/**
 * The command line's delegations (docs/reference/cli.md): `data-source delegate FROM TO`, each a
 * data source's id or resourceUri, audited as the admin interface's records are.
 */
@Injectable()
export class DataSourceDelegations {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(from: string, to: string, scopes: string[], actor: string): Promise<{ id: number; from: number; to: number }> {
    return this.dataSource.transaction(async (manager) => {
      const fromId = await dataSourceId(manager, from, 'from');
      const toId = await dataSourceId(manager, to, 'to');
      const id = await allocateId(manager, 'data_source_delegation');
      const columns = new Map<string, unknown>([
        ['id', id],
        ['from_id', fromId],
        ['to_id', toId],
        ['scopes', scopes],
      ]);
      await insertConsentRow(manager, 'data_source_delegation', columns).catch((error: unknown) => {
        if (isUniqueViolation(error)) throw new DelegationError(`data source ${from} is already delegated to ask data source ${to}`, 'to', 'conflict');
        throw error;
      });
      const problem = await delegationProblem(manager, id);
      if (problem) throw problem;
      const after = { scopes, from: String(fromId), to: String(toId) };
      await recordAuditEvent(manager, { actor, operation: 'add', recordType: 'data-source-delegation', recordId: id, before: null, after });
      return { id, from: fromId, to: toId };
    });
  }
}

/** A data source named by its row id (digits) or its resourceUri. */
async function dataSourceId(manager: EntityManager, reference: string, member: 'from' | 'to'): Promise<number> {
  const byId = /^[1-9]\d{0,9}$/.test(reference) && Number(reference) <= 2_147_483_647;
  const [row]: { id: number }[] = await manager.query(`SELECT id FROM data_source WHERE ${byId ? 'id = $1' : 'resource_uri = $1'} FOR KEY SHARE`, [
    byId ? Number(reference) : reference,
  ]);
  if (!row) throw new DelegationError(`no data source with id or resourceUri "${reference}"`, member, 'not-found');
  return row.id;
}
