import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen-props.js';
import { recordsById } from '../api/catalogue.js';
import { add, remove, replace, text, type ResourceObject } from '../api/documents.js';
import { whenLoaded } from '../api/when-loaded.js';
import { ErrorSummary, Status } from '../forms/fields.js';
import { NO_ERRORS, type FormErrors } from '../forms/form-errors.js';
import { PAGE_SIZE, SearchBox, savedRow, usePaged, useShowSaved, withSaved } from '../forms/paging.js';
import { RemoveButton, TableEnd } from '../forms/table-end.js';
import { useChange } from '../forms/use-change.js';
import { Words } from '../forms/words.js';
import { anchorsOf, purposesOf } from './anchors.js';
import { CommunityClients } from './community-clients.js';
import { CommunityForm, type CommunityValues } from './community-form.js';
import { communityLayout, communityWording } from './community-sentences.js';

const TYPE = 'trust-community';
type Mode = { kind: 'add' } | { kind: 'edit'; community: ResourceObject };

/** One page of communities (newest first, narrowed by the search). */
async function loadPage(api: ScreenProps['api'], page: number, search: string, highlight?: string) {
  const found = await api.list(TYPE, page, PAGE_SIZE, [], { filter: search ? { search } : {}, sort: '-id' });
  const communities = await withSaved(found.data, highlight, async (id) => (await recordsById(api, TYPE, [id])).get(id));
  return { communities, total: found.meta.total };
}

/** Digits as a number; anything else as typed, so that the server's refusal lands beside the field. */
const numberOrText = (value: string): number | string => (/^\d+$/.test(value) ? Number(value) : value);

const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);

/** A URI that may break after its slashes only (never inside a name), so that the table fits at 1280 px. */
function UriWords(props: { uri: string }) {
  const parts = props.uri.split(/(?<=\/)(?!\/)/);
  return (
    <span class="uri">
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          <span class="id">{part}</span>
        </Fragment>
      ))}
    </span>
  );
}

/**
 * Trust communities (docs/reference/trust-communities.md): the networks whose certificate
 * authorities vouch for UDAP clients. Add one with its anchors (files or pasted PEM), edit it,
 * disable or enable it, list its clients, remove it once it has none.
 */
export function TrustCommunitiesScreen({ api }: ScreenProps) {
  const paged = usePaged((page, search, highlight) => loadPage(api, page, search, highlight));
  const loaded = paged.loaded;
  useShowSaved(paged.highlight, loaded.value);
  const [mode, setMode] = useState<Mode>({ kind: 'add' });
  const [shown, setShown] = useState<ResourceObject>();
  const [status, setStatus] = useState<string>();
  const form = useChange(api, setStatus);
  const list = useChange(api, setStatus);

  /** The anchors and the attributes a form sends; false (the form's own refusal shown) when the anchors cannot be read. */
  const attributesOf = (values: CommunityValues, editing: boolean) => {
    const read = anchorsOf(values.sources);
    if ('refusal' in read) {
      const field = read.pasted ? 'anchorText' : 'anchorFiles';
      const refusal: FormErrors = { summary: [{ message: read.refusal, field }], fields: { [field]: read.refusal } };
      form.setErrors(refusal);
      return undefined;
    }
    const attributes: Record<string, unknown> = {
      name: values.name,
      communityUri: values.communityUri,
      scopeCeiling: values.scopeCeiling,
      purposesOfUse: purposesOf(values.purposesOfUse),
      revocationCheck: values.revocationCheck,
    };
    // Editing with no anchor given keeps the community's; adding sends what there is (none: the server says they are required).
    if (!editing || read.anchors.length > 0) attributes.anchors = read.anchors;
    if (values.accessTokenLifetime !== '' || editing) attributes.accessTokenLifetime = numberOrText(values.accessTokenLifetime);
    const anchorField: 'anchorFiles' | 'anchorText' = values.sources.some((source) => source.file) ? 'anchorFiles' : 'anchorText';
    return { attributes, layout: communityLayout(anchorField), wording: communityWording(read.origins) };
  };

  const create = async (values: CommunityValues) => {
    const sent = attributesOf(values, false);
    if (!sent) return false;
    return form.run([add(TYPE, sent.attributes)], {
      done: `Trust community “${values.name}” added.`,
      layout: sent.layout,
      wording: sent.wording,
      onDone: ([result]) => {
        if (result?.data) paged.showSaved(result.data.id);
        else loaded.reload();
      },
    });
  };
  const save = async (community: ResourceObject, values: CommunityValues) => {
    const sent = attributesOf(values, true);
    if (!sent) return false;
    return form.run([replace(TYPE, community.id, sent.attributes)], {
      done: `Trust community “${values.name}” saved.`,
      layout: sent.layout,
      wording: sent.wording,
      onDone: () => {
        setMode({ kind: 'add' });
        paged.showSaved(community.id);
      },
    });
  };
  const setEnabled = (community: ResourceObject, enabled: boolean) => {
    const name = text(community, 'name');
    void list.run([replace(TYPE, community.id, { enabled })], {
      done: enabled
        ? `Trust community “${name}” enabled: its members may register and ask for tokens again.`
        : `Trust community “${name}” disabled: its members can neither register nor obtain tokens until it is enabled again.`,
      onDone: () => loaded.reload(),
    });
  };
  const removeCommunity = (community: ResourceObject) => {
    const name = text(community, 'name');
    void list.run([remove(TYPE, community.id)], {
      done: `Trust community “${name}” removed.`,
      onDone: () => {
        if (mode.kind === 'edit' && mode.community.id === community.id) setMode({ kind: 'add' });
        if (shown?.id === community.id) setShown(undefined);
        loaded.reload();
      },
    });
  };

  return whenLoaded(loaded, ({ communities, total }) => (
    <>
      {status && <Status>{status}</Status>}
      <p class="hint">
        A member of a trust community registers itself with UDAP, presenting a certificate its community issued (UDAP=true on the server); a disabled
        community's members can neither register nor obtain tokens.
      </p>
      <SearchBox
        id="trust-community-search"
        label="Search trust communities"
        value={paged.search}
        onSearch={paged.searchFor}
        hint="The start of a community's name; newest first."
      />
      <ErrorSummary form="trust-community-list" errors={list.errors} />
      <div class="table-wrap">
        <table class="many-columns">
          <caption>{paged.search ? `Trust communities (${total} matching)` : `Trust communities (${total})`}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Community URI</th>
              <th scope="col">Anchors</th>
              <th scope="col">Scope ceiling</th>
              <th scope="col">Purposes of use</th>
              <th scope="col">Revocation check</th>
              <th scope="col">Token lifetime</th>
              <th scope="col">Clients</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {communities.map((community) => {
              const name = text(community, 'name');
              const enabled = community.attributes.enabled === true;
              const purposes = Array.isArray(community.attributes.purposesOfUse) ? (community.attributes.purposesOfUse as string[]) : [];
              return (
                <tr key={community.id} {...savedRow(paged.highlight === community.id)}>
                  <th scope="row">
                    {name} <span class="tag">{enabled ? 'enabled' : 'disabled'}</span>
                  </th>
                  <td>
                    <UriWords uri={text(community, 'communityUri')} />
                  </td>
                  <td>{count(community.attributes.anchors)}</td>
                  <td>
                    <Words text={text(community, 'scopeCeiling')} />
                  </td>
                  <td>{purposes.length === 0 ? 'any' : <Words text={purposes.join(' ')} />}</td>
                  <td>{text(community, 'revocationCheck')}</td>
                  <td>{`${text(community, 'accessTokenLifetime')} s`}</td>
                  <td>{text(community, 'clientCount')}</td>
                  <td class="actions stacked">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Edit trust community ${name}`}
                      onClick={() => {
                        form.setErrors(NO_ERRORS);
                        setMode({ kind: 'edit', community });
                      }}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`${enabled ? 'Disable' : 'Enable'} trust community ${name}`}
                      onClick={() => setEnabled(community, !enabled)}
                    >
                      {enabled ? 'Disable' : 'Enable'}
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Clients of trust community ${name}`}
                      aria-pressed={shown?.id === community.id ? 'true' : 'false'}
                      onClick={() => setShown(shown?.id === community.id ? undefined : community)}
                    >
                      Clients
                    </button>
                    <RemoveButton label={`Remove trust community ${name}`} onRemove={() => removeCommunity(community)} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {total === 0 && !paged.search && <p>No trust community yet: add one below.</p>}
      <TableEnd label="Trust community pages" page={paged.page} total={total} shown={communities.length} onGo={paged.go} noun="trust communities" />
      {shown && <CommunityClients key={shown.id} api={api} community={shown} onClose={() => setShown(undefined)} />}
      {mode.kind === 'add' ? (
        <CommunityForm key="add" errors={form.errors} onSubmit={create} />
      ) : (
        <CommunityForm
          key={`edit-${mode.community.id}`}
          community={mode.community}
          errors={form.errors}
          onSubmit={(values) => save(mode.community, values)}
          onCancel={() => {
            form.setErrors(NO_ERRORS);
            setMode({ kind: 'add' });
          }}
        />
      )}
    </>
  ));
}
