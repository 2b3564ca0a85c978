import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/api-client.js';
import { text, type ResourceObject } from '../api/documents.js';
import { useLoad } from '../api/use-load.js';
import { besideLoad } from '../api/when-loaded.js';

const PAGE_SIZE = 20;

type Page = { data: ResourceObject[]; meta: { total: number } };

/**
 * The UMA resources a data source's umaClient registered at the protection API (read-only:
 * docs/guides/uma.md), a page at a time from GET /admin/data-source/{id}/uma-resources.
 */
export function UmaResourcesPanel(props: { api: ApiClient; source: ResourceObject; onClose: () => void }) {
  const [number, setNumber] = useState(1);
  const name = text(props.source, 'name');
  const page = useLoad(() => props.api.get<Page>(`/admin/data-source/${props.source.id}/uma-resources?page%5Bnumber%5D=${number}&page%5Bsize%5D=${PAGE_SIZE}`));
  const go = (to: number) => {
    setNumber(to);
    page.reload();
  };
  const last = page.value ? Math.max(1, Math.ceil(page.value.meta.total / PAGE_SIZE)) : 1;
  return (
    <section class="panel" aria-labelledby="uma-resources-title">
      <h2 id="uma-resources-title">UMA resources of {name}</h2>
      {besideLoad(page, ({ meta, data }) =>
        meta.total === 0 ? (
          <p>{name} has registered no UMA resource.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <caption>
                UMA resources registered by {name} ({meta.total})
              </caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Resource id</th>
                  <th scope="col">Type</th>
                  <th scope="col">Scopes</th>
                </tr>
              </thead>
              <tbody>
                {data.map((resource) => (
                  <tr key={resource.id}>
                    <th scope="row">{text(resource, 'name') || '(no name)'}</th>
                    <td>
                      <code class="wrap">{text(resource, 'resourceId')}</code>
                    </td>
                    <td>{text(resource, 'type')}</td>
                    <td>{(resource.attributes.resourceScopes as string[]).join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ),
      )}
      <div class="actions">
        {number > 1 && (
          <button type="button" class="secondary" onClick={() => go(number - 1)}>
            Previous page
          </button>
        )}
        {number < last && (
          <button type="button" class="secondary" onClick={() => go(number + 1)}>
            Next page
          </button>
        )}
        <button type="button" class="secondary" onClick={props.onClose}>
          Close UMA resources
        </button>
      </div>
    </section>
  );
}
