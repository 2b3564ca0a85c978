import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { mutualTlsEnabled } from '../clients/mutual-tls.js';
import { InitialAccessTokenRecordHandler } from './records/initial-access-token-record-handler.js';
import { KeyEncryption } from '../keys/key-encryption.js';
import { TrustCommunityRecordHandler } from './records/trust-community-record-handler.js';
import { ClientsService } from '../clients/clients.service.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { AdminError, conflict, inDocument, malformed, notFound, type ErrorObject } from './json-api/admin-error.js';
import type { CollectionParameters } from './json-api/collection-parameters.js';
import { LocalIds } from './json-api/local-ids.js';
import { parsePatchOperation, type Operation } from './json-api/patch-operation.js';
import { parseResourceInput, type ResourceObject } from './json-api/resource-object.js';
import { AuditEventHandler } from './records/audit-event-handler.js';
import { ClientRecordHandler } from './records/client-record-handler.js';
import type { RecordHandler, Written } from './records/record-handler.js';
import { TICKET_RECORD_HANDLERS } from './records/ticket-records.js';
import { DATA_SOURCE_RECORD_HANDLERS } from './records/data-source-records.js';
import { DisclosureRecordHandler, refuseDisclosureWrite } from './records/disclosure-record-handler.js';
import { DisclosureWithdrawals, type RecordChange } from '../disclosures/disclosure-withdrawals.js';
import { recordAuditEvent } from '../audit/audit-trail.js';

export const MAX_OPERATIONS = 1000;

/** What one applied operation answers: `{data}` (and a generated secret, once). */
export type OperationResult = { data: ResourceObject | null; meta?: Record<string, unknown> };

/** A write's check at the end of its request (Written.atEnd), with the index of its operation. */
type AtEnd = { index: number; check: (manager: EntityManager) => Promise<void> };

/** Work a caller adds to the transaction of a single change (it fails the change by throwing). */
export type InTransaction = (manager: EntityManager) => Promise<void>;

export type PatchOutcome = { ok: true; results: OperationResult[] } | { ok: false; status: number; errors: { errors: ErrorObject[] }[] };

/**
 * The admin interface's records: applies JSON Patch documents (one transaction per request,
 * an audit event per change) and answers JSON:API reads.
 */
@Injectable()
export class AdminRecordsService {
  private readonly handlers: Map<string, RecordHandler>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: SigningKeysService,
    clientsService: ClientsService,
    private readonly withdrawals: DisclosureWithdrawals,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const clients = new ClientRecordHandler(clientsService);
    const initialAccessTokens = new InitialAccessTokenRecordHandler(mutualTlsEnabled(config));
    this.handlers = new Map(
      [
        ...TICKET_RECORD_HANDLERS,
        ...DATA_SOURCE_RECORD_HANDLERS,
        clients,
        initialAccessTokens,
        new TrustCommunityRecordHandler(config.issuer, new KeyEncryption(config.keyEncryptionSecret)),
        new AuditEventHandler(),
        new DisclosureRecordHandler(),
      ].map((handler) => [handler.type, handler]),
    );
  }

  get types(): string[] {
    return [...this.handlers.keys()];
  }

  /** The handler of a type named in a URL: an unknown type is a 404 there. */
  handlerForUrl(type: string): RecordHandler {
    const handler = this.handlers.get(type);
    if (!handler) throw notFound(`unknown type "${type}"`);
    return handler;
  }

  async applyPatch(document: unknown, actor: string): Promise<PatchOutcome> {
    const values = this.checkDocument(document);
    let failedAt = -1;
    try {
      const operations = values.map((value, index) => {
        failedAt = index;
        refuseDisclosureWrite(value);
        return parsePatchOperation(value, this.handlers);
      });
      const changes: RecordChange[] = [];
      const results = await this.dataSource.transaction(async (manager) => {
        const done: OperationResult[] = [];
        const localIds = new LocalIds();
        const atEnd: AtEnd[] = [];
        for (const [index, operation] of operations.entries()) {
          failedAt = index;
          const result = await this.apply(manager, localIds.resolve(operation), actor, changes, (check) => atEnd.push({ index, check }));
          localIds.remember(operation, result.data?.id);
          done.push(result);
        }
        // Rules about records later operations may add, once all are applied; a refusal names its operation.
        for (const { index, check } of atEnd) {
          failedAt = index;
          await check(manager);
        }
        return done;
      });
      await this.withdrawals.afterCommit(changes);
      return { ok: true, results };
    } catch (error) {
      if (!(error instanceof AdminError)) throw error;
      return {
        ok: false,
        status: error.status,
        errors: values.map((_, index) => ({
          errors: [index === failedAt ? error.toObject(`/${index}`) : notApplied(index, failedAt)],
        })),
      };
    }
  }

  /** POST /admin/<type> (the controller has checked the type, before reading the body): one add, in its own transaction. */
  async create(type: string, document: unknown, actor: string): Promise<OperationResult> {
    const result = await this.dataSource
      .transaction(async (manager) => {
        const atEnd: AtEnd['check'][] = [];
        const applied = await this.apply(manager, { op: 'add', type, value: dataOf(document) }, actor, undefined, (check) => atEnd.push(check));
        for (const check of atEnd) await check(manager);
        return applied;
      })
      .catch((error: unknown) => {
        throw inDocument(error);
      });
    await this.withdrawals.afterCommit();
    return result;
  }

  /**
   * PATCH /admin/<type>/<id> (type checked by the controller): one replace. `alsoInTransaction` is
   * more work for the same transaction (dynamic registration's client management replaces its token there).
   */
  async update(type: string, id: number, document: unknown, actor: string, alsoInTransaction?: InTransaction): Promise<OperationResult> {
    const changes: RecordChange[] = [];
    const result = await this.dataSource
      .transaction(async (manager) => {
        const atEnd: AtEnd['check'][] = [];
        const applied = await this.apply(manager, { op: 'replace', type, id, value: dataOf(document) }, actor, changes, (check) => atEnd.push(check));
        for (const check of atEnd) await check(manager);
        await alsoInTransaction?.(manager);
        return applied;
      })
      .catch((error: unknown) => {
        throw inDocument(error);
      });
    await this.withdrawals.afterCommit(changes);
    return result;
  }

  /**
   * POST /admin/keys/rotate, recorded in the audit trail like any other change: the new key is
   * published at once and signs after SIGNING_KEY_PUBLISH_AHEAD seconds (`now`: at once).
   */
  async rotateSigningKey(actor: string, now = false): Promise<ResourceObject> {
    // The audit event is written in the rotation's own transaction.
    const { kid, signsFrom } = await this.keys.rotate(undefined, actor, { now });
    const jwk = (await this.keys.publicKeys()).find((key) => key.kid === kid) ?? { kid };
    return { type: 'signing-key', id: kid, attributes: { ...jwk, signsFrom: signsFrom.toISOString().replace(/\.\d{3}Z$/, 'Z') } };
  }

  /** DELETE /admin/<type>/<id> (type checked by the controller). */
  async remove(type: string, id: number, actor: string, alsoInTransaction?: InTransaction): Promise<void> {
    const changes: RecordChange[] = [];
    await this.dataSource.transaction(async (manager) => {
      await alsoInTransaction?.(manager);
      await this.apply(manager, { op: 'remove', type, id }, actor, changes);
    });
    await this.withdrawals.afterCommit(changes);
  }

  async read(type: string, id: number, include: string[]): Promise<{ data: ResourceObject; included?: ResourceObject[] }> {
    const handler = this.handlerForUrl(type);
    this.checkIncludes(handler, include);
    const [record] = await handler.find(this.dataSource.manager, [id]);
    if (!record) throw notFound(`no ${type} with id ${id}`);
    return { data: record, ...(await this.included([record], include)) };
  }

  /** One page of a collection, filtered and sorted (docs/reference/admin-filters.md). */
  async list(type: string, { page, filters, sort }: CollectionParameters, include: string[]) {
    const handler = this.handlerForUrl(type);
    this.checkIncludes(handler, include);
    const query = { offset: (page.number - 1) * page.size, limit: page.size, filters, sort };
    const { records, total } = await handler.list(this.dataSource.manager, query);
    return { data: records, ...(await this.included(records, include)), meta: { total, page }, lastPage: Math.max(1, Math.ceil(total / page.size)) };
  }

  private async apply(
    manager: EntityManager,
    operation: Operation,
    actor: string,
    changes?: RecordChange[],
    checkAtEnd?: (check: AtEnd['check']) => void,
  ): Promise<OperationResult> {
    const handler = this.handlers.get(operation.type)!;
    if (operation.op === 'remove') {
      const before = await handler.snapshot(manager, operation.id);
      await handler.remove(manager, operation.id);
      const auditEventId = await audit(manager, actor, operation.op, handler.type, operation.id, before, null);
      changes?.push({ auditEventId, operation: 'remove', recordType: handler.type, recordId: operation.id, before });
      await this.withdrawals.pending(manager, auditEventId);
      return { data: null };
    }
    const input = parseResourceInput(operation.value, '/value');
    if (input.type !== handler.type) {
      throw conflict(`the resource object's type "${input.type}" does not match the path's type "${handler.type}"`, '/value/type');
    }
    let written: Written;
    let before = null;
    if (operation.op === 'add') {
      written = await handler.create(manager, input);
    } else {
      if (input.id !== undefined && input.id !== operation.id) {
        throw conflict(`the resource object's id ${input.id} does not match the path's id ${operation.id}`, '/value/id');
      }
      before = await handler.snapshot(manager, operation.id);
      written = await handler.update(manager, operation.id, input, actor);
    }
    if (written.atEnd) checkAtEnd?.(written.atEnd);
    // This service is the one writer of the admin interface's audit events, for every type.
    const auditEventId = await audit(manager, actor, operation.op, handler.type, written.id, before, await handler.snapshot(manager, written.id));
    if (operation.op === 'replace') {
      changes?.push({ auditEventId, operation: 'replace', recordType: handler.type, recordId: written.id, before });
      await this.withdrawals.pending(manager, auditEventId);
    }
    const [data] = await handler.find(manager, [written.id]);
    if (!written.meta) return { data: data };
    return { data: { ...data, meta: { ...data.meta, ...written.meta } }, meta: written.meta };
  }

  /** Document-level checks; their errors are a plain errors document, not per operation. */
  private checkDocument(document: unknown): unknown[] {
    if (!Array.isArray(document)) throw malformed('a JSON Patch document is an array of operations', '');
    if (document.length > MAX_OPERATIONS) throw new AdminError(413, 'too_many_operations', `at most ${MAX_OPERATIONS} operations per request`);
    if (document.length === 0) throw malformed('the JSON Patch document has no operations', '');
    return document;
  }

  private checkIncludes(handler: RecordHandler, include: string[]): void {
    for (const path of include) {
      let current = handler;
      for (const name of path.split('.')) {
        const next = current.relationships[name];
        if (!next) throw malformed(`unknown include "${path}"`);
        current = this.handlers.get(next)!;
      }
    }
  }

  /** Related records named by `include` paths, each once, without the primary records. */
  private async included(primary: ResourceObject[], include: string[]): Promise<{ included?: ResourceObject[] }> {
    if (include.length === 0) return {};
    const seen = new Map<string, ResourceObject>(primary.map((record) => [`${record.type}:${record.id}`, record]));
    const found = new Map<string, ResourceObject>();
    for (const path of include) {
      let level = primary;
      for (const name of path.split('.')) {
        const wanted = new Map<string, number[]>();
        for (const record of level) {
          const target = record.relationships?.[name]?.data;
          if (target) wanted.set(target.type, [...(wanted.get(target.type) ?? []), Number(target.id)]);
        }
        level = [];
        for (const [type, ids] of wanted) {
          for (const record of await this.handlers.get(type)!.find(this.dataSource.manager, [...new Set(ids)])) {
            const key = `${record.type}:${record.id}`;
            if (!seen.has(key)) found.set(key, record);
            level.push(record);
          }
        }
      }
    }
    return { included: [...found.values()] };
  }
}

function dataOf(document: unknown): unknown {
  if (typeof document !== 'object' || document === null || !('data' in document)) {
    throw malformed('a JSON:API document needs a "data" member', '');
  }
  return document.data;
}

function notApplied(index: number, failedAt: number): ErrorObject {
  return {
    status: '424',
    code: 'not_applied',
    title: 'Failed Dependency',
    detail: `operation ${index} was not applied because operation ${failedAt} failed`,
    source: { pointer: `/${index}` },
  };
}

function audit(
  manager: EntityManager,
  actor: string,
  operation: string,
  recordType: string,
  recordId: number,
  before: object | null,
  after: object | null,
): Promise<number> {
  return recordAuditEvent(manager, { actor, operation, recordType, recordId, before, after });
}
