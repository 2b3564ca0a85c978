/** A JSON:API error object (https://jsonapi.org/format/#error-objects). */
export type ErrorObject = {
  status: string;
  code: string;
  title: string;
  detail: string;
  /** `pointer` into the request body, or `parameter`: the query parameter at fault. */
  source?: { pointer?: string; parameter?: string };
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/**
 * A refusal of the admin interface. `pointer` is relative to the operation or document being
 * processed (e.g. `/value/relationships/purpose`); the patch executor prefixes the operation index.
 */
export class AdminError extends Error {
  headers: Record<string, string> = {};

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly pointer?: string,
    readonly parameter?: string,
  ) {
    super(detail);
  }

  toObject(pointerPrefix = ''): ErrorObject {
    const object: ErrorObject = { status: String(this.status), code: this.code, title: TITLES[this.status] ?? 'Error', detail: this.detail };
    if (this.pointer !== undefined) object.source = { pointer: `${pointerPrefix}${this.pointer}` };
    else if (this.parameter !== undefined) object.source = { parameter: this.parameter };
    return object;
  }
}

export const malformed = (detail: string, pointer?: string, parameter?: string) => new AdminError(400, 'malformed', detail, pointer, parameter);
export const notFound = (detail: string, pointer?: string) => new AdminError(404, 'not_found', detail, pointer);
export const conflict = (detail: string, pointer?: string) => new AdminError(409, 'conflict', detail, pointer);
export const ruleBroken = (detail: string, pointer?: string) => new AdminError(422, 'rule_broken', detail, pointer);

/**
 * A plain JSON:API request (`POST`/`PATCH /admin/<type>`) is checked as a patch operation's
 * `value`; its errors point into the request's own document, whose resource is `data`.
 */
export function inDocument(error: unknown): unknown {
  if (!(error instanceof AdminError) || !error.pointer?.startsWith('/value')) return error;
  const moved = new AdminError(error.status, error.code, error.detail, `/data${error.pointer.slice('/value'.length)}`, error.parameter);
  moved.headers = error.headers;
  return moved;
}
