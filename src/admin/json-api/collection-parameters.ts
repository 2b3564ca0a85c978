import type { Request } from 'express';
import { malformed } from './admin-error.js';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export type Page = { number: number; size: number };

/** The query parameters of a collection read: paging, `filter[…]` and `sort` (docs/reference/admin-filters.md). */
export type CollectionParameters = { page: Page; filters: Map<string, string>; sort: string[] };

/** Reads the parameters' syntax; whether the type knows each member is the records' business. */
export function collectionParametersOf(request: Request): CollectionParameters {
  const filters = new Map<string, string>();
  for (const [key, value] of Object.entries(request.query)) {
    if (key !== 'filter' && !key.startsWith('filter[')) continue;
    const name = /^filter\[([^[\]]*)\]$/.exec(key)?.[1];
    if (name === undefined || name === '') throw malformed(`unknown filter member "${key}": write filter[<member>]=<value>`, undefined, key);
    filters.set(name, single(key, value));
  }
  return { page: pageOf(request), filters, sort: sortOf(request) };
}

function single(key: string, value: unknown): string {
  if (typeof value !== 'string') throw malformed(`${key} must be given once, as one value`, undefined, key);
  return value;
}

function sortOf(request: Request): string[] {
  const value = request.query.sort;
  if (value === undefined) return [];
  const keys = single('sort', value).split(',');
  if (keys.some((key) => key === '' || key === '-'))
    throw malformed('sort must be a comma-separated list of members, each optionally preceded by "-"', undefined, 'sort');
  return keys;
}

export function pageOf(request: Request): Page {
  const read = (name: string, fallback: number, max: number) => {
    const value = request.query[`page[${name}]`];
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !/^[1-9]\d{0,5}$/.test(value) || Number(value) > max) {
      throw malformed(`page[${name}] must be a whole number from 1 to ${max}`, undefined, `page[${name}]`);
    }
    return Number(value);
  };
  return { number: read('number', 1, 999_999), size: read('size', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) };
}

/** The links of a page: the same query (filters, sort, include) with another page number. */
export function pageLinks(request: Request, type: string, page: Page, lastPage: number): Record<string, string> {
  const link = (number: number) => {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query)) {
      if (typeof value === 'string' && !key.startsWith('page[')) query.set(key, value);
    }
    query.set('page[number]', String(number));
    query.set('page[size]', String(page.size));
    return `/admin/${type}?${query.toString().replace(/%5B/g, '[').replace(/%5D/g, ']')}`;
  };
  return {
    self: link(page.number),
    first: link(1),
    last: link(lastPage),
    ...(page.number < lastPage ? { next: link(page.number + 1) } : {}),
    ...(page.number > 1 ? { prev: link(page.number - 1) } : {}),
  };
}
