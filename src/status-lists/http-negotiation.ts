/** One `type/subtype;q=…` element of an Accept or Accept-Encoding header, lower-cased. */
function ranges(header: string): { value: string; q: number }[] {
  return header
    .split(',')
    .map((part) => {
      const [value, ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
      const q = parameters.find((parameter) => parameter.startsWith('q='));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { value, q: Number.isFinite(weight) ? weight : 0 };
    })
    .filter((range) => range.value !== '');
}

/** Whether an Accept header allows `type` (absent: anything goes; `q=0` refuses). */
export function accepts(header: string | undefined, type: string): boolean {
  if (header === undefined || header.trim() === '') return true;
  const [major] = type.split('/');
  return ranges(header).some((range) => range.q > 0 && (range.value === type || range.value === `${major}/*` || range.value === '*/*'));
}

/** Whether an Accept-Encoding header allows gzip. */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  const found = ranges(header);
  const gzip = found.find((range) => range.value === 'gzip' || range.value === 'x-gzip');
  if (gzip !== undefined) return gzip.q > 0;
  return found.some((range) => range.value === '*' && range.q > 0);
}

/** Whether an If-None-Match header names this ETag (or `*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}
