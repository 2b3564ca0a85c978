import { AdminError } from '../json-api/admin-error.js';
import type { ResourceObject } from '../json-api/resource-object.js';
import type { RecordHandler, Snapshot, Written } from './record-handler.js';
import type { Collection } from './collection.js';

/** 403 read_only: disclosures are written by the token endpoint only (docs/guides/consent-withdrawal.md). */
export function disclosureReadOnly(pointer?: string): AdminError {
  return new AdminError(403, 'read_only', 'disclosure records are written by the token endpoint only and cannot be added, changed or removed', pointer);
}

/**
 * A JSON Patch operation on `/disclosure` or `/disclosure/<id>` is refused as read-only before
 * anything else is checked (a disclosure id may be 64-bit, which no other type's path accepts).
 */
export function refuseDisclosureWrite(operation: unknown): void {
  const path = typeof operation === 'object' && operation !== null ? (operation as { path?: unknown }).path : undefined;
  if (typeof path === 'string' && /^\/disclosure(\/|$)/.test(path)) throw disclosureReadOnly('/path');
}

/**
 * The `disclosure` type in the JSON Patch executor: known (so its name is not "unknown"), never
 * writable. Reads go through DisclosuresController, with the type's own filters and CSV.
 */
export class DisclosureRecordHandler implements RecordHandler {
  readonly type = 'disclosure';
  readonly relationships = {};
  // Never listed through here: DisclosuresController serves the collection with its own filters (docs/guides/consent-withdrawal.md).
  readonly collection: Collection = { from: 'FROM disclosure d', fields: [], search: [] };

  create(): Promise<Written> {
    throw disclosureReadOnly('/op');
  }

  update(): Promise<Written> {
    throw disclosureReadOnly('/op');
  }

  remove(): Promise<void> {
    throw disclosureReadOnly('/op');
  }

  find(): Promise<ResourceObject[]> {
    return Promise.resolve([]);
  }

  list(): Promise<{ records: ResourceObject[]; total: number }> {
    return Promise.resolve({ records: [], total: 0 });
  }

  snapshot(): Promise<Snapshot | null> {
    return Promise.resolve(null);
  }
}
