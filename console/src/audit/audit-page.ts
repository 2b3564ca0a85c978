/**
 * The admin interface lists audit events oldest first (by id); the console shows them newest
 * first. Display page `page` (1 = newest) holds the events at positions [start, end) of the
 * oldest-first list; it is read as the one or two interface pages of `size` that cover them.
 */
export function newestFirstWindow(total: number, page: number, size: number): { start: number; end: number; apiPages: number[] } {
  const end = Math.max(0, total - (page - 1) * size);
  const start = Math.max(0, end - size);
  if (end === 0) return { start, end, apiPages: [] };
  const first = Math.floor(start / size) + 1;
  const last = Math.floor((end - 1) / size) + 1;
  return { start, end, apiPages: first === last ? [first] : [first, last] };
}

export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}
