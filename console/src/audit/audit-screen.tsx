import type { ScreenProps } from '../screen-props.js';
import type { ApiClient } from '../api/api-client.js';
import { recordsById } from '../api/catalogue.js';
import { text, type ResourceObject } from '../api/documents.js';
import { useLoad } from '../api/use-load.js';
import { whenLoaded } from '../api/when-loaded.js';
import { formatDate } from '../format.js';
import { TableEnd } from '../forms/table-end.js';
import { useEffect, useState } from 'preact/hooks';
import { actorWords, attributesOf, keyOf, namesFromEvents, operationSentence, relatedKeys, requestsOf, type Names, type Request } from './audit-sentences.js';

/** Events per page: a page holds whole requests more often with more of them. */
const EVENTS_PER_PAGE = 50;
/** How many events before and after a linked change are read to find the rest of its request. */
const AROUND = 49;
/** At most this many removed records are looked up in their own trail per page. */
const LOOKUPS = 25;

/** The names of every record the events relate to: the page's own snapshots, then the records as they are, then their last audit event. */
async function namesFor(api: ApiClient, events: ResourceObject[]): Promise<Names> {
  const names = namesFromEvents(events);
  for (let round = 0; round < 2; round++) {
    const wanted = [...new Set([...events.flatMap(relatedKeys), ...[...names.values()].flatMap((snapshot) => relatedKeys(asEvent(snapshot)))])].filter(
      (key) => !names.has(key),
    );
    if (wanted.length === 0) break;
    const byType = new Map<string, string[]>();
    for (const key of wanted) {
      const [type, id] = key.split(':');
      byType.set(type, [...(byType.get(type) ?? []), id]);
    }
    await Promise.all(
      [...byType].map(async ([type, ids]) => {
        const found = await recordsById(api, type, ids).catch(() => new Map<string, ResourceObject>());
        for (const [id, record] of found) names.set(keyOf(type, id), snapshotOf(record));
      }),
    );
    const removed = wanted.filter((key) => !names.has(key)).slice(0, LOOKUPS);
    await Promise.all(
      removed.map(async (key) => {
        const [type, id] = key.split(':');
        const trail = await api.list('audit-event', 1, 1, [], { filter: { recordType: type, recordId: id }, sort: '-id' }).catch(() => undefined);
        const last = trail?.data[0];
        if (last) names.set(key, attributesOf(last.attributes.after ?? last.attributes.before));
      }),
    );
  }
  return names;
}

/** A record's attributes and relationship ids, as the trail's snapshots hold them. */
function snapshotOf(record: ResourceObject): Record<string, unknown> {
  const related = Object.fromEntries(Object.entries(record.relationships ?? {}).map(([name, value]) => [name, value.data?.id ?? null]));
  return { ...record.attributes, ...related };
}

/** A snapshot dressed as an event, to find the records it relates to. */
const asEvent = (snapshot: Record<string, unknown>): ResourceObject => ({ type: 'audit-event', id: '', attributes: { after: snapshot } });

/** One page of the trail, newest first, grouped by request. */
async function loadPage(api: ApiClient, page: number) {
  const { data, meta } = await api.list('audit-event', page, EVENTS_PER_PAGE, [], { sort: '-id' });
  return { requests: requestsOf(data), names: await namesFor(api, data), total: meta.total, shown: data.length };
}

/** The request a linked change (an event id) belongs to: the events around it, grouped. */
async function loadChange(api: ApiClient, change: number) {
  const ids = Array.from({ length: 2 * AROUND + 1 }, (_, index) => change - AROUND + index).filter((id) => id > 0 && id <= 2_147_483_647);
  const { data } = await api.list('audit-event', 1, 100, [], { filter: { id: ids.join(',') }, sort: '-id' });
  const request = requestsOf(data).find((candidate) => candidate.events.some((event) => event.id === String(change)));
  return { request, names: await namesFor(api, request?.events ?? []) };
}

/** "Change 13" or "Changes 13–17": the event ids a request's entry holds. */
function entryTitle(request: Request): string {
  const first = request.events[0].id;
  const last = request.events[request.events.length - 1].id;
  return first === last ? `Change ${first}` : `Changes ${first}–${last}`;
}

/**
 * Wallet activity 7: the audit trail, newest first, a page at a time; one entry per request,
 * each operation a sentence with its change number. `#/audit/<change>` shows the request of one
 * change (the Disclosures screen links there from "withdrawn … by change N").
 */
export function AuditScreen({ api, param }: ScreenProps) {
  const change = param && /^[1-9]\d{0,9}$/.test(param) ? Number(param) : undefined;
  return change === undefined ? <Trail api={api} /> : <OneChange api={api} change={change} />;
}

function Trail({ api }: { api: ApiClient }) {
  const [page, setPage] = useState(1);
  const trail = useLoad(() => loadPage(api, page));
  const go = (next: number) => {
    setPage(next);
    trail.reload();
  };
  return whenLoaded(trail, ({ requests, names, total, shown }) => (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">{`Audit trail, newest first: page ${page} of ${Math.max(1, Math.ceil(total / EVENTS_PER_PAGE))} (${total} events)`}</h2>
      <p class="hint">One entry per request: its operations were written together, or not at all. The numbers are the changes' event ids.</p>
      {requests.length === 0 ? (
        <p>No change yet.</p>
      ) : (
        <ol class="trail" aria-label="Changes, newest first">
          {requests.map((request) => (
            <Entry key={request.events[0].id} request={request} names={names} />
          ))}
        </ol>
      )}
      <TableEnd
        label="Audit trail pages"
        page={page}
        total={total}
        shown={shown}
        size={EVENTS_PER_PAGE}
        onGo={go}
        previous="Newer"
        next="Older"
        noun="events"
      />
    </section>
  ));
}

function OneChange({ api, change }: { api: ApiClient; change: number }) {
  const loaded = useLoad(() => loadChange(api, change));
  useEffect(() => document.getElementById(`change-${change}`)?.scrollIntoView({ block: 'center' }), [loaded.value]);
  return whenLoaded(loaded, ({ request, names }) => (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">{`Change ${change}`}</h2>
      {request ? (
        <ol class="trail" aria-label={`The request of change ${change}`}>
          <Entry request={request} names={names} current={String(change)} />
        </ol>
      ) : (
        <p>No change {change} in the audit trail.</p>
      )}
      <p>
        <a href="#/audit">The whole audit trail</a>
      </p>
    </section>
  ));
}

/**
 * The Disclosures screen filtered to what a change withdrew: its ticket (by record id, which
 * still matches once the ticket is removed) or its client, when the change removed one.
 */
function withdrawnLink(event: ResourceObject, names: Names): string {
  const type = text(event, 'recordType');
  const snapshot = attributesOf(event.attributes.before) ?? names.get(keyOf(type, text(event, 'recordId')));
  const ticket =
    type === 'capability-ticket' ? text(event, 'recordId') : type === 'requested-resources-capability-tickets' ? snapshot.capabilityTicket : undefined;
  if (typeof ticket === 'string' && ticket !== '') return `#/disclosures/ticket/${encodeURIComponent(ticket)}`;
  if (type === 'uma-client' && typeof snapshot.clientId === 'string') return `#/disclosures/client/${encodeURIComponent(snapshot.clientId)}`;
  return '#/disclosures';
}

function Entry({ request, names, current }: { request: Request; names: Names; current?: string }) {
  return (
    <li class="entry">
      <h3>
        {entryTitle(request)} <span class="when">· {formatDate(request.occurredAt)}</span> <span class="who">· by {actorWords(request.actor)}</span>
      </h3>
      <ol class="operations">
        {request.events.map((event) => {
          const withdrew = Number(event.attributes.withdrawnTokens ?? 0) > 0;
          return (
            <li key={event.id} id={`change-${event.id}`} aria-current={current === event.id ? 'true' : undefined}>
              <a class="change-number" href={`#/audit/${event.id}`}>{`change ${event.id}`}</a> <span class="sentence">{operationSentence(event, names)}</span>
              {withdrew && (
                <>
                  {' '}
                  (<a href={withdrawnLink(event, names)}>the withdrawn disclosures</a>)
                </>
              )}
            </li>
          );
        })}
      </ol>
    </li>
  );
}
