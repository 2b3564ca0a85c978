import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import type { ApiClient } from '../api/api-client.js';
import type { ListDocument } from '../api/documents.js';
import { useLoad } from '../api/use-load.js';
import { besideLoad } from '../api/when-loaded.js';
import { pageCount } from '../forms/paging.js';
import { TableEnd } from '../forms/table-end.js';
import { Checkbox, TextField } from '../forms/fields.js';
import { messageOf, NO_ERRORS } from '../forms/form-errors.js';
import { disclosureSentence, type DisclosureAttributes } from './disclosure-sentence.js';

const PAGE_SIZE = 20;
const FORM = 'disclosure-filters';

type Filters = { client: string; ticket: string; activeOnly: boolean };

/**
 * The ticket as the administrator typed it: a record id as it is, a ticketId ("T-1") looked up
 * through the capability-ticket collection's filter. Undefined: no such ticket.
 */
async function ticketRecordId(api: ApiClient, ticket: string): Promise<string | undefined> {
  if (/^[1-9]\d*$/.test(ticket)) return ticket;
  const found = await api.get<ListDocument>(`/admin/capability-ticket?${new URLSearchParams({ 'filter[ticketId]': ticket, 'page[size]': '100' }).toString()}`);
  return found.data.find((record) => record.attributes.ticketId === ticket)?.id;
}

/** The query of the disclosure collection for these filters (null: a ticket that does not exist matches nothing). */
async function queryOf(api: ApiClient, filters: Filters): Promise<URLSearchParams | null> {
  const query = new URLSearchParams();
  if (filters.client.trim()) query.set('filter[client]', filters.client.trim());
  if (filters.ticket.trim()) {
    const id = await ticketRecordId(api, filters.ticket.trim());
    if (id === undefined) return null;
    query.set('filter[capabilityTicket]', id);
  }
  if (filters.activeOnly) query.set('filter[active]', 'true');
  return query;
}

async function loadPage(api: ApiClient, filters: Filters, page: number) {
  const query = await queryOf(api, filters);
  if (!query) return { rows: [], total: 0 };
  query.set('page[number]', String(page));
  query.set('page[size]', String(PAGE_SIZE));
  const document = await api.get<ListDocument>(`/admin/disclosure?${query.toString()}`);
  return { rows: document.data, total: document.meta.total };
}

/** The filters a link sets: `#/disclosures/ticket/T-1` or `#/disclosures/client/glucose-app` (the audit trail links so). */
function filtersOf(param: string | undefined): Filters {
  const [kind, value] = (param ?? '').split('/');
  const decoded = value ? decodeURIComponent(value) : '';
  return { client: kind === 'client' ? decoded : '', ticket: kind === 'ticket' ? decoded : '', activeOnly: false };
}

/** Wallet activity 8: who was given access to what, newest first, with the filters and the CSV export. */
export function DisclosuresScreen({ api, param }: ScreenProps) {
  const [filters, setFilters] = useState<Filters>(filtersOf(param));
  const [draft, setDraft] = useState<Filters>(filters);
  const [page, setPage] = useState(1);
  const [downloadError, setDownloadError] = useState<string>();
  const list = useLoad(() => loadPage(api, filters, page));
  const apply = (next: Filters, nextPage = 1) => {
    setFilters(next);
    setPage(nextPage);
    list.reload();
  };
  const download = async () => {
    try {
      const query = await queryOf(api, filters);
      if (!query) {
        setDownloadError(`No ticket "${filters.ticket.trim()}": there is nothing to export.`);
        return;
      }
      const blob = await api.download(`/admin/disclosure?${query.toString()}`, 'text/csv');
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = 'disclosures.csv';
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      setDownloadError(undefined);
    } catch (error) {
      setDownloadError(messageOf(error));
    }
  };

  return (
    <>
      <form
        id={FORM}
        class="filters"
        aria-label="Filter disclosures"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
        }}
      >
        <TextField
          form={FORM}
          name="client"
          label="Client"
          errors={NO_ERRORS}
          value={draft.client}
          onInput={(client) => setDraft({ ...draft, client })}
          hint="A client_id"
        />
        <TextField
          form={FORM}
          name="ticket"
          label="Ticket"
          errors={NO_ERRORS}
          value={draft.ticket}
          onInput={(ticket) => setDraft({ ...draft, ticket })}
          hint="A ticket id such as T-1"
        />
        <Checkbox form={FORM} name="active" label="Active only" checked={draft.activeOnly} onChange={(activeOnly) => setDraft({ ...draft, activeOnly })} />
        <button type="submit">Show</button>
        <button type="button" class="secondary" onClick={() => void download()}>
          Download CSV
        </button>
      </form>
      {downloadError && (
        <p class="load-error" role="alert">
          {downloadError}
        </p>
      )}
      {besideLoad(list, ({ rows, total }) => (
        <DisclosureList rows={rows} total={total} page={page} onPage={(next) => apply(filters, next)} />
      ))}
    </>
  );
}

function DisclosureList(props: { rows: ListDocument['data']; total: number; page: number; onPage: (page: number) => void }) {
  const pages = pageCount(props.total, PAGE_SIZE);
  return (
    <section aria-labelledby="disclosures-title">
      <h2 id="disclosures-title">{`Disclosures, newest first: page ${props.page} of ${pages} (${props.total})`}</h2>
      {props.total === 0 && <p>No disclosure matches.</p>}
      <ul class="sentences">
        {props.rows.map((row) => (
          <li key={row.id}>
            <span class="sentence">
              <Sentence attributes={row.attributes as DisclosureAttributes} />
            </span>
            <span class="detail">disclosure {row.id}</span>
          </li>
        ))}
      </ul>
      <TableEnd
        label="Disclosure pages"
        page={props.page}
        total={props.total}
        shown={props.rows.length}
        size={PAGE_SIZE}
        onGo={props.onPage}
        previous="Newer"
        next="Older"
        noun="disclosures"
      />
    </section>
  );
}

/** The sentence, its "change N" a link to that change in the audit trail. */
function Sentence({ attributes }: { attributes: DisclosureAttributes }) {
  const sentence = disclosureSentence(attributes);
  const change = attributes.withdrawnBy;
  const tail = `change ${change}`;
  if (change === null || !sentence.endsWith(tail)) return <>{sentence}</>;
  return (
    <>
      {sentence.slice(0, -tail.length)}
      <a href={`#/audit/${change}`}>{tail}</a>
    </>
  );
}
