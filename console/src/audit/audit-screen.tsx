import { useState } from 'preact/hooks';
import type { ScreenProps } from '../app.js';
import type { ResourceObject } from '../api/documents.js';
import { text } from '../api/documents.js';
import { useLoad } from '../api/use-load.js';
import { formatDate } from '../format.js';
import { PAGE_SIZE, pageCount } from '../forms/paging.js';

/** One page of the trail, newest first: the server sorts (sort=-id), one request per page. */
async function loadPage(api: ScreenProps['api'], page: number) {
  const { data, meta } = await api.list('audit-event', page, PAGE_SIZE, [], { sort: '-id' });
  return { events: data, total: meta.total };
}

/** What changed in a record, in a few words: the attributes whose values differ. */
function changes(event: ResourceObject): string {
  const before = (event.attributes.before ?? {}) as Record<string, unknown>;
  const after = (event.attributes.after ?? {}) as Record<string, unknown>;
  const pick = (snapshot: Record<string, unknown>) => (snapshot.attributes ?? snapshot) as Record<string, unknown>;
  const names = new Set([...Object.keys(pick(before)), ...Object.keys(pick(after))]);
  const changed = [...names].filter((name) => JSON.stringify(pick(before)[name]) !== JSON.stringify(pick(after)[name]));
  return changed.join(', ');
}

/** Wallet activity 7: the audit trail, newest first, a page at a time. */
export function AuditScreen({ api }: ScreenProps) {
  const [page, setPage] = useState(1);
  const trail = useLoad(() => loadPage(api, page));
  const go = (next: number) => {
    setPage(next);
    trail.reload();
  };

  if (trail.error)
    return (
      <p class="load-error" role="alert">
        {trail.error}
      </p>
    );
  if (!trail.value) return <p class="loading">Loading…</p>;
  const pages = pageCount(trail.value.total);
  return (
    <>
      <div class="table-wrap">
        <table>
          <caption>{`Audit trail, newest first: page ${page} of ${pages} (${trail.value.total} events)`}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Operation</th>
              <th scope="col">Record</th>
              <th scope="col">Changed</th>
              <th scope="col">Who</th>
            </tr>
          </thead>
          <tbody>
            {trail.value.events.map((event) => (
              <tr key={event.id}>
                <td>{formatDate(event.attributes.occurredAt)}</td>
                <td>{text(event, 'operation')}</td>
                <td>
                  {text(event, 'recordType')} {text(event, 'recordId')}
                </td>
                <td>{changes(event)}</td>
                <td>{text(event, 'actor')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Audit trail pages">
        <button type="button" class="secondary" disabled={page <= 1} onClick={() => go(page - 1)}>
          Newer
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" class="secondary" disabled={page >= pages} onClick={() => go(page + 1)}>
          Older
        </button>
      </nav>
    </>
  );
}
