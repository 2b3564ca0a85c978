import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import { MAX_PAGE_SIZE, type ApiClient } from '../api/api-client.js';
import type { Choice } from '../api/catalogue.js';
import { ErrorSummary, Status } from '../forms/fields.js';
import { useChange } from '../forms/use-change.js';
import { SearchBox, usePaged, type Paged } from '../forms/paging.js';
import { RemoveButton, TableEnd } from '../forms/table-end.js';
import { loadTickets, removalOf, type Chain, type ClientTickets } from './ticket-chains.js';
import { purposeCodes, TicketForm, ticketOperations, type TicketValues } from './ticket-form.js';
import { ticketSentence } from './ticket-sentence.js';
import { activeTokensByTicket, activeTokensText, ConfirmRemoval } from './active-tokens.js';

/**
 * The id of a purpose whose text is exactly this one and whose purpose-of-use codes are the typed
 * ones (in any order), if any: a ticket relates to it rather than adding the same purpose again,
 * and never gives another purpose's tickets new codes. If the lookup fails, the ticket adds its
 * purpose (the server judges it).
 */
async function existingPurpose(api: ApiClient, name: string, typedCodes: string): Promise<string | undefined> {
  if (name === '') return undefined;
  const codes = purposeCodes(typedCodes).sort();
  try {
    const found = await api.list('purpose', 1, MAX_PAGE_SIZE, [], { filter: { name } });
    return found.data.find((purpose) => {
      const held = purpose.attributes?.purposesOfUse;
      const sorted = Array.isArray(held) ? held.map(String).sort() : [];
      return sorted.length === codes.length && sorted.every((code, index) => code === codes[index]);
    })?.id;
  } catch {
    return undefined;
  }
}

/** The client whose client ID is exactly this text, if any (the filter takes what was typed). */
async function clientByClientId(api: ApiClient, clientId: string): Promise<Choice | undefined> {
  const found = await api.list('uma-client', 1, 1, [], { filter: { clientId } });
  const client = found.data[0];
  return client ? { id: client.id, label: clientId } : undefined;
}

/** Which tickets the screen shows: every client's, or one client's (or none: no such client). */
type Shown = { kind: 'all' } | { kind: 'client'; client: Choice } | { kind: 'unknown'; clientId: string };

/**
 * Consent tickets: the newest tickets of every client, as sentences, paged on the server and
 * searched by ticket ID or name; a "Client" filter narrows them to one client. The one form;
 * removal of a whole chain (confirmed first when it withdraws active tokens).
 */
export function TicketsScreen({ api }: ScreenProps) {
  const [shown, setShown] = useState<Shown>({ kind: 'all' });
  const [draft, setDraft] = useState('');
  const tickets = usePaged((page, search) =>
    shown.kind === 'unknown'
      ? Promise.resolve({ chains: [], total: 0, active: new Map<string, number>() })
      : loadWithActiveTokens(api, shown.kind === 'client' ? shown.client : undefined, page, search),
  );
  const [status, setStatus] = useState<string>();
  const form = useChange(api, setStatus, { clearStatusOnError: true });
  const list = useChange(api, setStatus);
  const [confirming, setConfirming] = useState<string>();

  const show = (next: Shown) => {
    setShown(next);
    setDraft(next.kind === 'client' ? next.client.label : next.kind === 'unknown' ? next.clientId : '');
    tickets.searchFor('');
  };
  const filter = async (event: Event) => {
    event.preventDefault();
    const clientId = draft.trim();
    if (clientId === '') return show({ kind: 'all' });
    const client = await clientByClientId(api, clientId).catch(() => undefined);
    show(client ? { kind: 'client', client } : { kind: 'unknown', clientId });
  };
  const create = async (values: TicketValues) => {
    const { operations, layout } = ticketOperations(values, await existingPurpose(api, values.purpose, values.purposesOfUse));
    // The new ticket is the newest: it leads the list, in whichever view is shown.
    return form.run(operations, { done: `Ticket ${values.ticketId} created.`, layout, onDone: () => tickets.searchFor('') });
  };
  const removeChain = async (chain: Chain) => {
    setConfirming(undefined);
    await list.run(removalOf(api, chain), {
      done: `Ticket ${chain.ticketId} removed: ${chain.clientId} no longer gets ${chain.definition} for it.`,
      onDone: () => tickets.loaded.reload(),
    });
  };
  const title = shown.kind === 'all' ? 'Newest tickets of all clients' : `Tickets of ${shown.kind === 'client' ? shown.client.label : shown.clientId}`;

  return (
    <>
      {status && <Status>{status}</Status>}
      <ErrorSummary form="ticket-list" errors={list.errors} />
      <section aria-labelledby="tickets-title">
        <h2 id="tickets-title">{title}</h2>
        <form class="filters" role="search" aria-label="Ticket filters" onSubmit={(event) => void filter(event)} noValidate>
          <div class="field">
            <label for="ticket-filter-client">Client</label>
            {/* The buttons sit on the line of the field they act on; the hint goes below both. */}
            <div class="with-buttons">
              <input
                id="ticket-filter-client"
                type="text"
                value={draft}
                autoComplete="off"
                spellcheck={false}
                aria-describedby="ticket-filter-client-hint"
                onInput={(event) => setDraft(event.currentTarget.value)}
              />
              <button type="submit">Show</button>
              {shown.kind !== 'all' && (
                <button type="button" class="secondary" onClick={() => show({ kind: 'all' })}>
                  All clients
                </button>
              )}
            </div>
            <p class="hint" id="ticket-filter-client-hint">
              A client ID, to show only that client's tickets; empty for every client.
            </p>
          </div>
        </form>
        <TicketList
          key={shown.kind === 'client' ? shown.client.id : shown.kind}
          shown={shown}
          tickets={tickets}
          confirming={confirming}
          onConfirming={setConfirming}
          onRemove={(chain) => void removeChain(chain)}
        />
      </section>
      <TicketForm api={api} errors={form.errors} onSubmit={create} />
    </>
  );
}

type TicketsWithActiveTokens = ClientTickets & { active: Map<string, number> };

/** One page of tickets, with how many active tokens each ticket covers. */
async function loadWithActiveTokens(api: ScreenProps['api'], client: Choice | undefined, page: number, search: string): Promise<TicketsWithActiveTokens> {
  const found = await loadTickets(api, client, page, search);
  return {
    ...found,
    active: await activeTokensByTicket(
      api,
      found.chains.map((chain) => chain.ticketRecordId),
    ),
  };
}

function TicketList(props: {
  shown: Shown;
  tickets: Paged<TicketsWithActiveTokens>;
  confirming: string | undefined;
  onConfirming: (combinationId: string | undefined) => void;
  onRemove: (chain: Chain) => void;
}) {
  const { loaded, page, go, searchFor } = props.tickets;
  const activeOf = (chain: Chain) => loaded.value?.active.get(chain.ticketRecordId) ?? 0;
  const whose = props.shown.kind === 'client' ? props.shown.client.label : props.shown.kind === 'unknown' ? props.shown.clientId : undefined;
  const empty =
    props.shown.kind === 'unknown'
      ? `No client has the client ID “${props.shown.clientId}”.`
      : props.tickets.search
        ? 'No ticket ID or name starts with that.'
        : whose
          ? `No consent ticket for ${whose} yet.`
          : 'No consent ticket yet: create the first one with the form below.';
  return (
    <>
      <SearchBox id="ticket-search" label="Search tickets" hint="The start of a ticket ID or name; newest tickets first." onSearch={searchFor} />
      {loaded.error && (
        <p class="load-error" role="alert">
          {loaded.error}
        </p>
      )}
      {!loaded.value ? (
        <p class="loading">Loading…</p>
      ) : loaded.value.chains.length === 0 ? (
        <p>{empty}</p>
      ) : (
        <ul class="sentences" aria-label={whose ? `Tickets of ${whose}` : 'Tickets of all clients'}>
          {loaded.value.chains.map((chain) => (
            <li key={chain.combinationId}>
              <span class="sentence">{ticketSentence(chain)}</span>
              <span class="detail">
                {chain.ticketName} · requested resource {chain.requestedResourceId} · {activeTokensText(activeOf(chain))}
              </span>
              {/* A removal that withdraws tokens is confirmed first. */}
              <RemoveButton
                label={`Remove ticket ${chain.ticketId}`}
                onRemove={() => (activeOf(chain) > 0 ? props.onConfirming(chain.combinationId) : props.onRemove(chain))}
              />
              {props.confirming === chain.combinationId && (
                <ConfirmRemoval
                  ticketId={chain.ticketId}
                  count={activeOf(chain)}
                  onConfirm={() => props.onRemove(chain)}
                  onCancel={() => props.onConfirming(undefined)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {loaded.value && <TableEnd label="Ticket pages" page={page} total={loaded.value.total} shown={loaded.value.chains.length} onGo={go} noun="tickets" />}
    </>
  );
}
