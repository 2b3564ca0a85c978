import { useState } from 'preact/hooks';
import type { ScreenProps } from '../app.js';
import { useLoad } from '../api/use-load.js';
import { ErrorSummary, Status } from '../forms/fields.js';
import { formErrorsOf, NO_ERRORS, type FormErrors } from '../forms/form-errors.js';
import { loadTickets, removalOf, type Chain } from './ticket-chains.js';
import { TicketForm, ticketOperations, type TicketValues } from './ticket-form.js';
import { ticketSentence } from './ticket-sentence.js';
import { activeTokensByTicket, activeTokensText, ConfirmRemoval } from './active-tokens.js';

/** Consent tickets: each client's tickets as sentences, the one form, removal of a whole chain. */
export function TicketsScreen({ api }: ScreenProps) {
  const tickets = useLoad(async () => {
    const data = await loadTickets(api);
    return { ...data, active: await activeTokensByTicket(api, data.chains.map((chain) => chain.ticketRecordId)) };
  });
  const [confirming, setConfirming] = useState<string>();
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [listErrors, setListErrors] = useState<FormErrors>(NO_ERRORS);
  const [status, setStatus] = useState<string>();

  const create = async (values: TicketValues) => {
    const { operations, layout } = ticketOperations(values);
    try {
      await api.patch(operations);
      setErrors(NO_ERRORS);
      setStatus(`Ticket ${values.ticketId} created.`);
      tickets.reload();
      return true;
    } catch (error) {
      setStatus(undefined);
      setErrors(formErrorsOf(error, layout));
      return false;
    }
  };
  const removeChain = async (chain: Chain) => {
    setConfirming(undefined);
    try {
      await api.patch(removalOf(chain, tickets.value!));
      setListErrors(NO_ERRORS);
      setStatus(`Ticket ${chain.ticketId} removed: ${chain.clientId} no longer gets ${chain.definition} for it.`);
      tickets.reload();
    } catch (error) {
      setListErrors(formErrorsOf(error));
    }
  };

  if (tickets.error) return <p class="load-error" role="alert">{tickets.error}</p>;
  if (!tickets.value) return <p class="loading">Loading…</p>;
  const { chains, clients, definitions, active } = tickets.value;
  const owners = [...new Set(chains.map((chain) => chain.clientId))].sort();
  return (
    <>
      {status && <Status>{status}</Status>}
      <ErrorSummary form="ticket-list" errors={listErrors} />
      <section>
        <h2 id="tickets-title">Tickets by client</h2>
        {owners.length === 0 && <p>No consent ticket yet: create one with the form below.</p>}
        {owners.map((owner) => (
          <section key={owner} class="client-tickets">
            <h3>{owner}</h3>
            <ul class="sentences">
              {chains.filter((chain) => chain.clientId === owner).map((chain) => (
                <li key={chain.combinationId}>
                  <span class="sentence">{ticketSentence(chain)}</span>
                  <span class="detail">{chain.ticketName} · requested resource {chain.requestedResourceId} · {activeTokensText(active.get(chain.ticketRecordId) ?? 0)}</span>
                  <button type="button" class="danger" aria-label={`Remove ticket ${chain.ticketId}`}
                    onClick={() => ((active.get(chain.ticketRecordId) ?? 0) > 0 ? setConfirming(chain.combinationId) : void removeChain(chain))}>Remove</button>
                  {confirming === chain.combinationId && (
                    <ConfirmRemoval ticketId={chain.ticketId} count={active.get(chain.ticketRecordId) ?? 0} onConfirm={() => void removeChain(chain)} onCancel={() => setConfirming(undefined)} />
                  )}
                </li>
              ))}
            </ul>
          </section>
        ))}
      </section>
      <TicketForm clients={clients} definitions={definitions} errors={errors} onSubmit={create} />
    </>
  );
}
