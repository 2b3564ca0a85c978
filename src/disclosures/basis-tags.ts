import { createHash } from 'node:crypto';

// Each record a disclosure rests on is one 64-bit tag: its kind in the top bits, its id (or, for
// a record named by a string, 48 bits of the string's SHA-256) below. One bigint array per
// disclosure with a GIN index replaces a row per record (docs/guides/consent-withdrawal.md).
const KINDS = {
  'uma-client': 1,
  'capability-ticket': 2,
  'requested-resource': 3,
  'requested-resource-scopes': 4,
  'requested-resources-capability-tickets': 5,
  'data-source': 6,
  'client-id': 7,
} as const;

export type BasisKind = keyof typeof KINDS;

const KIND_SHIFT = 2 ** 48;
// Kinds named by a string; a hash collision only makes a change re-decide a disclosure more.
const HASHED: ReadonlySet<BasisKind> = new Set(['data-source', 'client-id']);

/** The tag of one record, as a decimal string (a bigint in PostgreSQL; below 2^51, exact in a JS number). */
export function basisTag(kind: BasisKind, ref: string | number): string {
  const id = Number(ref);
  const direct = !HASHED.has(kind) && Number.isSafeInteger(id) && id >= 0 && id < KIND_SHIFT;
  const value = direct ? id : createHash('sha256').update(String(ref)).digest().readUIntBE(0, 6);
  return String(KINDS[kind] * KIND_SHIFT + value);
}

/** Whether `kind` names a kind of record a disclosure can rest on. */
export function isBasisKind(kind: string): kind is BasisKind {
  return Object.hasOwn(KINDS, kind);
}
