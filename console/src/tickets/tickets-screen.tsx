import { useState } from 'preact/hooks';
import type { ScreenProps } from '../app.js';
import type { ApiClient } from '../api/api-client.js';
import { searchClients, type Choice } from '../api/catalogue.js';
import { useLoad } from '../api/use-load.js';
import { ErrorSummary, Status } from '../forms/fields.js';
import { useChange } from '../forms/use-change.js';
import { Pager, pageCount, SearchBox, usePaged, type Paged } from '../forms/paging.js';
import { loadClientTickets, removalOf, type Chain, type ClientTickets } from './ticket-chains.js';
import { TicketForm, ticketOperations, type TicketValues } from './ticket-form.js';
import { ticketSentence } from './ticket-sentence.js';
import { activeTokensByTicket, activeTokensText, ConfirmRemoval } from './active-tokens.js';

/**
 * The id of a purpose whose text is exactly this one, if any: a ticket relates to it rather than
 * adding the same words again. If the lookup fails, the ticket adds its purpose (the server judges the text).
 */
async function existingPurpose(api: ApiClient, name: string): Promise<string | undefined> {
  if (name === '') return undefined;
  try {
    return (await api.list('purpose', 1, 1, [], { filter: { name } })).data[0]?.id;
  } catch {
    return undefined;
  }
}

/**
 * Consent tickets: the tickets of one client at a time (the client found by search), as
 * sentences; the one form; removal of a whole chain.
 */
export function TicketsScreen({ api }: ScreenProps) {
  const [client, setClient] = useState<Choice>();
  const [clientSearch, setClientSearch] = useState('');
  const matches = useLoad(() => (clientSearch ? searchClients(api, clientSearch) : Promise.resolve([])));
  const tickets = usePaged((page, search) =>
    client ? loadWithActiveTokens(api, client, page, search) : Promise.resolve({ chains: [], total: 0, active: new Map<string, number>() }),
  );
  const [status, setStatus] = useState<string>();
  const form = useChange(api, setStatus, { clearStatusOnError: true });
  const list = useChange(api, setStatus);
  const [confirming, setConfirming] = useState<string>();

  const show = (chosen: Choice) => {
    setClient(chosen);
    setClientSearch('');
    matches.reload();
    tickets.searchFor('');
  };
  const create = async (values: TicketValues, owner: Choice) => {
    const { operations, layout } = ticketOperations(values, await existingPurpose(api, values.purpose));
    return form.run(operations, { done: `Ticket ${values.ticketId} created.`, layout, onDone: () => show(owner) });
  };
  const removeChain = async (chain: Chain) => {
    setConfirming(undefined);
    await list.run(removalOf(api, chain), {
      done: `Ticket ${chain.ticketId} removed: ${chain.clientId} no longer gets ${chain.definition} for it.`,
      onDone: () => tickets.loaded.reload(),
    });
  };

  return (
    <>
      {status && <Status>{status}</Status>}
      <ErrorSummary form="ticket-list" errors={list.errors} />
      <section>
        <h2 id="tickets-title">Tickets of one client</h2>
        <SearchBox
          id="ticket-client-search"
          label="Search ticket holders"
          hint="The start of a client ID or name; then choose the client whose tickets to show."
          onSearch={(text) => {
            setClientSearch(text);
            matches.reload();
          }}
        />
        {clientSearch &&
          matches.value &&
          (matches.value.length === 0 ? (
            <p>No client starts with “{clientSearch}”.</p>
          ) : (
            <ul class="choices" aria-label="Clients found">
              {matches.value.map((match) => (
                <li key={match.id}>
                  <button type="button" class="secondary" aria-label={`Show the tickets of ${match.label}`} onClick={() => show(match)}>
                    {match.label}
                  </button>
                </li>
              ))}
            </ul>
          ))}
        {client ? (
          <ClientTicketList
            client={client}
            tickets={tickets}
            confirming={confirming}
            onConfirming={setConfirming}
            onRemove={(chain) => void removeChain(chain)}
          />
        ) : (
          <p>Search for a client to see its tickets, or create a ticket with the form below.</p>
        )}
      </section>
      <TicketForm api={api} errors={form.errors} onSubmit={create} />
    </>
  );
}

type TicketsWithActiveTokens = ClientTickets & { active: Map<string, number> };

/** One page of a client's tickets, with how many active tokens each ticket covers. */
async function loadWithActiveTokens(api: ScreenProps['api'], client: Choice, page: number, search: string): Promise<TicketsWithActiveTokens> {
  const found = await loadClientTickets(api, client, page, search);
  return {
    ...found,
    active: await activeTokensByTicket(
      api,
      found.chains.map((chain) => chain.ticketRecordId),
    ),
  };
}

function ClientTicketList(props: {
  client: Choice;
  tickets: Paged<TicketsWithActiveTokens>;
  confirming: string | undefined;
  onConfirming: (combinationId: string | undefined) => void;
  onRemove: (chain: Chain) => void;
}) {
  const { loaded, page, go, searchFor } = props.tickets;
  const activeOf = (chain: Chain) => loaded.value?.active.get(chain.ticketRecordId) ?? 0;
  return (
    <section class="client-tickets" aria-labelledby="client-tickets-title">
      <h3 id="client-tickets-title">{props.client.label}</h3>
      <SearchBox key={props.client.id} id="ticket-search" label="Search tickets" hint="The start of a ticket ID or name." onSearch={searchFor} />
      {loaded.error && (
        <p class="load-error" role="alert">
          {loaded.error}
        </p>
      )}
      {!loaded.value ? (
        <p class="loading">Loading…</p>
      ) : loaded.value.chains.length === 0 ? (
        <p>No consent ticket for {props.client.label} here.</p>
      ) : (
        <ul class="sentences">
          {loaded.value.chains.map((chain) => (
            <li key={chain.combinationId}>
              <span class="sentence">{ticketSentence(chain)}</span>
              <span class="detail">
                {chain.ticketName} · requested resource {chain.requestedResourceId} · {activeTokensText(activeOf(chain))}
              </span>
              {/* A removal that withdraws tokens is confirmed first. */}
              <button
                type="button"
                class="danger"
                aria-label={`Remove ticket ${chain.ticketId}`}
                onClick={() => (activeOf(chain) > 0 ? props.onConfirming(chain.combinationId) : props.onRemove(chain))}
              >
                Remove
              </button>
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
      {loaded.value && <Pager label={`Ticket pages of ${props.client.label}`} page={page} pages={pageCount(loaded.value.total)} onGo={go} />}
    </section>
  );
}
