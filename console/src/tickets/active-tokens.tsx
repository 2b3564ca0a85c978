import { useEffect, useRef } from 'preact/hooks';
import type { ApiClient } from '../api/api-client.js';
import type { ListDocument } from '../api/documents.js';

/**
 * How many active (unexpired, not withdrawn) tokens each capability ticket covers: the total of
 * the disclosure collection filtered by ticket and activity, one small request per ticket.
 */
export async function activeTokensByTicket(api: ApiClient, ticketRecordIds: string[]): Promise<Map<string, number>> {
  const counts = await Promise.all(
    [...new Set(ticketRecordIds)].map(async (id) => {
      const query = new URLSearchParams({ 'filter[capabilityTicket]': id, 'filter[active]': 'true', 'page[number]': '1', 'page[size]': '1' });
      const { meta } = await api.get<ListDocument>(`/admin/disclosure?${query.toString()}`);
      return [id, meta.total] as const;
    }),
  );
  return new Map(counts);
}

/** "2 active tokens", "1 active token", "no active tokens". */
export function activeTokensText(count: number): string {
  if (count === 0) return 'no active tokens';
  return `${count} active token${count === 1 ? '' : 's'}`;
}

/** Asked before a removal that withdraws tokens; Cancel changes nothing. */
export function ConfirmRemoval(props: { ticketId: string; count: number; onConfirm: () => void; onCancel: () => void }) {
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);
  const id = `confirm-removal-${props.ticketId}`;
  return (
    <div class="confirm" role="alertdialog" aria-labelledby={id}>
      <p id={id}>{`Removing ticket ${props.ticketId} withdraws ${props.count} active token${props.count === 1 ? '' : 's'}`}</p>
      <button type="button" class="danger" ref={confirm} onClick={props.onConfirm}>
        Remove and withdraw
      </button>
      <button type="button" class="secondary" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}
