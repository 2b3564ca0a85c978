import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiClient } from '../api/api-client.js';
import { text, type ResourceObject } from '../api/documents.js';
import { useLoad } from '../api/use-load.js';
import { besideLoad } from '../api/when-loaded.js';
import { PAGE_SIZE } from '../forms/paging.js';
import { TableEnd } from '../forms/table-end.js';

/**
 * The clients of one trust community (`filter[trustCommunity]`), a page at a time: each with the
 * organization its certificate names and its identity in the community (udapIssuer). The heading
 * takes the focus as the list opens, so keyboard and screen-reader users land on it.
 */
export function CommunityClients(props: { api: ApiClient; community: ResourceObject; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const clients = useLoad(() => props.api.list('uma-client', page, PAGE_SIZE, [], { filter: { trustCommunity: props.community.id }, sort: '-id' }));
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const name = text(props.community, 'name');
  return (
    <section class="community-clients" aria-labelledby="trust-community-clients-title">
      <h2 id="trust-community-clients-title" tabIndex={-1} ref={heading}>
        {`Clients of trust community “${name}”`}
      </h2>
      {besideLoad(clients, (found) => (
        <>
          {found.meta.total === 0 ? (
            <p>No client has registered through this community.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption>{`Clients of “${name}” (${found.meta.total})`}</caption>
                <thead>
                  <tr>
                    <th scope="col">Client ID</th>
                    <th scope="col">Name</th>
                    <th scope="col">Organization</th>
                    <th scope="col">UDAP issuer</th>
                  </tr>
                </thead>
                <tbody>
                  {found.data.map((client) => (
                    <tr key={client.id}>
                      <th scope="row">
                        <code class="id">{text(client, 'clientId')}</code>
                      </th>
                      <td>{text(client, 'clientName')}</td>
                      <td>{text(client, 'organization')}</td>
                      <td>
                        <span class="id">{text(client, 'udapIssuer')}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <TableEnd
            label={`Pages of the clients of ${name}`}
            page={page}
            total={found.meta.total}
            shown={found.data.length}
            onGo={(next) => {
              setPage(next);
              clients.reload();
            }}
            noun="clients"
          />
        </>
      ))}
      <div class="actions">
        <button type="button" class="secondary" onClick={props.onClose}>
          Close the list of clients
        </button>
      </div>
    </section>
  );
}
