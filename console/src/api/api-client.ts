import type { ErrorObject, ListDocument, Operation, OperationResult } from './documents.js';
import { inSentences } from './error-sentences.js';

const JSON_API = 'application/vnd.api+json';
const JSON_PATCH = `${JSON_API}; ext=jsonpatch`;
/** The most records one page may hold (the admin interface's limit). */
export const MAX_PAGE_SIZE = 100;

/** Filters and order of a list (docs/reference/admin-filters.md): `filter[<member>]`, `filter[search]`, `sort`. */
export type ListOptions = { filter?: Record<string, string>; sort?: string };

/**
 * A refusal of the admin interface: its status and the error objects that say why (for a JSON
 * Patch request, those of the failing operation; the others only say "not applied").
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ErrorObject[],
  ) {
    super(errors.map((error) => error.detail).join('; ') || `the server answered ${status}`);
  }
}

/**
 * The one way the console talks to the server: every call goes to the admin interface of this
 * origin with the admin headers; a 401 brings the sign-in back (onUnauthorized). Screens never
 * call fetch themselves.
 */
export class ApiClient {
  constructor(
    private readonly token: string,
    private readonly onUnauthorized: () => void,
  ) {}

  async get<T>(path: string): Promise<T> {
    return (await this.send('GET', path)) as T;
  }

  /**
   * One page of a type, filtered and sorted on the server. The console never reads a whole
   * collection: at scale (docs/guides/console.md) every list is a page and every picker a search.
   */
  list(type: string, number: number, size: number, include: string[] = [], options: ListOptions = {}): Promise<ListDocument> {
    const query = new URLSearchParams({ 'page[number]': String(number), 'page[size]': String(Math.min(size, MAX_PAGE_SIZE)) });
    if (include.length > 0) query.set('include', include.join(','));
    for (const [name, value] of Object.entries(options.filter ?? {})) query.set(`filter[${name}]`, value);
    if (options.sort) query.set('sort', options.sort);
    return this.get<ListDocument>(`/admin/${type}?${query.toString()}`);
  }

  /**
   * A file the admin interface answers (the disclosures' CSV), fetched with the admin token in
   * its headers (never in a URL), as a Blob the screen offers for download.
   */
  async download(path: string, accept: string): Promise<Blob> {
    const response = await fetch(path, {
      headers: { Authorization: this.token, ApiVersion: 'v1.0', Accept: accept },
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
    if (response.ok) return response.blob();
    if (response.status === 401) this.onUnauthorized();
    throw new ApiError(response.status, errorObjectsOf(await response.json().catch(() => undefined), response.status));
  }

  /**
   * One JSON Patch request: one transaction, whatever the number of operations. A known refusal
   * (a taken client ID, a record still in use) comes back in the console's words, not the API's.
   */
  async patch(operations: Operation[]): Promise<OperationResult[]> {
    try {
      return (await this.send('PATCH', '/admin', operations, JSON_PATCH)) as OperationResult[];
    } catch (error) {
      if (error instanceof ApiError) throw new ApiError(error.status, inSentences(error.errors, operations));
      throw error;
    }
  }

  async post<T>(path: string): Promise<T> {
    return (await this.send('POST', path)) as T;
  }

  private async send(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
    const headers: Record<string, string> = { Authorization: this.token, ApiVersion: 'v1.0', Accept: JSON_API };
    if (contentType) headers['Content-Type'] = contentType;
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
    const answer: unknown = response.status === 204 ? undefined : await response.json().catch(() => undefined);
    if (response.ok) return answer;
    if (response.status === 401) this.onUnauthorized();
    throw new ApiError(response.status, errorObjectsOf(answer, response.status));
  }
}

/** The error objects of a JSON:API error document, or of the failing operation of a JSON Patch answer. */
export function errorObjectsOf(answer: unknown, status: number): ErrorObject[] {
  const documents = Array.isArray(answer) ? answer : [answer];
  const errors: ErrorObject[] = [];
  for (const document of documents) {
    const list = (document as { errors?: unknown } | undefined)?.errors;
    if (Array.isArray(list)) errors.push(...(list as ErrorObject[]).filter((error) => error.code !== 'not_applied'));
  }
  if (errors.length > 0) return errors;
  return [{ status: String(status), code: 'unexpected', title: 'Error', detail: `the server answered ${status}`, ...{} }];
}
