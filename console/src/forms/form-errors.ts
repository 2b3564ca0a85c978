import { ApiError } from '../api/api-client.js';
import type { ErrorObject } from '../api/documents.js';

/** What a refused change shows: a summary at the top, and messages beside their fields. */
export type FormErrors = { summary: { message: string; field?: string }[]; fields: Record<string, string> };

export const NO_ERRORS: FormErrors = { summary: [], fields: {} };

/**
 * Which form field each member of each operation fills: `layout[i][member]` for operation `i` of
 * the PATCH request (member: an attribute or relationship name, or `id`, or `path`).
 */
export type PointerLayout = Record<string, string>[];

/** The field a JSON pointer such as `/2/value/attributes/ticketId` names in a form, if any. */
export function fieldOfPointer(pointer: string | undefined, layout: PointerLayout): string | undefined {
  if (!pointer) return undefined;
  const match = /^\/(\d+)(?:\/value\/(?:attributes|relationships)\/([^/]+)|\/value\/(id)|\/(path))?/.exec(pointer);
  if (!match) return undefined;
  const operation = layout[Number(match[1])];
  const member = match[2] ?? match[3] ?? match[4];
  return operation && member ? operation[member.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
}

/**
 * A form's own words for a refusal of the server: given the field the error names (if any) and
 * the error object, the message to show instead of the server's detail (undefined: keep it).
 */
export type Wording = (field: string | undefined, error: ErrorObject) => string | undefined;

/** A failure as the form shows it; a field gets the first message that names it. */
export function formErrorsOf(error: unknown, layout: PointerLayout = [], wording?: Wording): FormErrors {
  if (!(error instanceof ApiError)) {
    return { summary: [{ message: 'The server could not be reached. Try again.' }], fields: {} };
  }
  const fields: Record<string, string> = {};
  const summary = error.errors.map((object) => {
    const field = fieldOfPointer(object.source?.pointer, layout);
    const detail = (object.status !== '401' && wording?.(field, object)) || object.detail;
    if (field && !(field in fields)) fields[field] = detail;
    return { message: object.status === '401' ? 'Your session has ended: sign in again.' : detail, field };
  });
  return { summary, fields };
}

/** A failure outside any form field: just the message. */
export function messageOf(error: unknown): string {
  return formErrorsOf(error)
    .summary.map((entry) => entry.message)
    .join(' ');
}
