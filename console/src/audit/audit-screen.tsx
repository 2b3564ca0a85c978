import { useState } from 'preact/hooks';
import type { ScreenProps } from '../app.js';
import type { ResourceObject } from '../api/documents.js';
import { text } from '../api/documents.js';
import { useLoad } from '../api/use-load.js';
import { whenLoaded } from '../api/when-loaded.js';
import { formatDate } from '../format.js';
import { PAGE_SIZE, pageCount } from '../forms/paging.js';

/** One page of the trail, newest first: the server sorts (sort=-id), one request per page. */
async function loadPage(api: ScreenProps['api'], page: number) {
  const { data, meta } = await api.list('audit-event', page, PAGE_SIZE, [], { sort: '-id' });
  return { events: data, total: meta.total };
}

type Snapshot = Record<string, unknown>;

/** A snapshot's attributes (the server keeps a resource object; older events kept bare attributes). */
function attributesOf(snapshot: unknown): Snapshot {
  if (!snapshot || typeof snapshot !== 'object') return {};
  const record = snapshot as Snapshot;
  return (record.attributes && typeof record.attributes === 'object' ? record.attributes : record) as Snapshot;
}

/** The attribute people know each type's records by (docs/guides/console.md#the-audit-trail). */
const NAMED_BY: Record<string, string> = {
  'uma-client': 'clientId',
  'capability-ticket': 'ticketId',
  'resource-definition': 'name',
  purpose: 'name',
  'data-source': 'name',
};

/** The record's name from the snapshot after the change (or before it, for a removal), else its id. */
export function recordName(event: ResourceObject): string {
  const attribute = NAMED_BY[text(event, 'recordType')];
  const name = attribute && [event.attributes.after, event.attributes.before].map((snapshot) => attributesOf(snapshot)[attribute]).find(Boolean);
  return typeof name === 'string' && name !== '' ? name : text(event, 'recordId');
}

const shown = (value: unknown) =>
  value === null || value === undefined || value === '' ? '(none)' : typeof value === 'string' ? value : JSON.stringify(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** What changed, field by field, from what to what: unchanged fields (null to null too) are left out. */
export function changes(event: ResourceObject): string[] {
  const before = attributesOf(event.attributes.before);
  const after = attributesOf(event.attributes.after);
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return names.filter((name) => !same(before[name], after[name])).map((name) => `${name}: ${shown(before[name])} → ${shown(after[name])}`);
}

/** Wallet activity 7: the audit trail, newest first, a page at a time. */
export function AuditScreen({ api }: ScreenProps) {
  const [page, setPage] = useState(1);
  const trail = useLoad(() => loadPage(api, page));
  const go = (next: number) => {
    setPage(next);
    trail.reload();
  };

  return whenLoaded(trail, ({ total, events }) => {
    const pages = pageCount(total);
    return (
      <>
        <div class="table-wrap">
          <table>
            <caption>{`Audit trail, newest first: page ${page} of ${pages} (${total} events)`}</caption>
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
              {events.map((event) => (
                <tr key={event.id}>
                  <td>{formatDate(event.attributes.occurredAt)}</td>
                  <td>{text(event, 'operation')}</td>
                  <td>
                    {text(event, 'recordType')} {recordName(event)}
                  </td>
                  <td>
                    <ChangeList event={event} />
                  </td>
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
  });
}

function ChangeList({ event }: { event: ResourceObject }) {
  const lines = changes(event);
  if (lines.length === 0) return null;
  return (
    <ul class="changes">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}
