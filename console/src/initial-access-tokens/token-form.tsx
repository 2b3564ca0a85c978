import { useState } from 'preact/hooks';
import { text, type ResourceObject } from '../api/documents.js';
import { CheckboxGroup, ErrorSummary, TextField } from '../forms/fields.js';
import { FormButtons } from '../forms/form-buttons.js';
import { fieldText } from '../forms/form-data.js';
import type { FormErrors, PointerLayout } from '../forms/form-errors.js';
import { BASE_GRANT_TYPE, GRANT_TYPES, type GrantType } from '../../../src/oauth/grant-types.js';

export type TokenValues = {
  name: string;
  /** Creating only: the ceilings a registering client must stay within. */
  scopeCeiling: string;
  grantTypes: string[];
  authMethods: string[];
  /** Seconds as typed; empty: the server's ACCESS_TOKEN_TTL. */
  accessTokenLifetime: string;
  /** As typed; empty: 1 when creating, unchanged when editing. */
  maxUses: string;
  /** Hours from now as typed; empty: 24 h when creating, unchanged when editing. */
  expiresInHours: string;
};

/** Where the server's error pointers (`/0/value/attributes/<member>`) land in this form. */
export const TOKEN_LAYOUT: PointerLayout = [
  {
    name: 'name',
    scopeCeiling: 'scopeCeiling',
    grantTypes: 'grantTypes',
    authMethods: 'authMethods',
    accessTokenLifetime: 'accessTokenLifetime',
    maxUses: 'maxUses',
    expiresAt: 'expiresInHours',
    path: 'name',
  },
];

// The server's own list (src/oauth/grant-types.ts); the base grant is in every token's grant types.
const GRANT_LABELS: Record<GrantType, string> = {
  client_credentials: `${BASE_GRANT_TYPE} (always)`,
  refresh_token: 'refresh_token',
  'urn:ietf:params:oauth:grant-type:uma-ticket': 'UMA grant (urn:ietf:params:oauth:grant-type:uma-ticket)',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'Token exchange (urn:ietf:params:oauth:grant-type:token-exchange)',
};
const GRANT_TYPE_CHOICES = GRANT_TYPES.map((value) => ({ value, label: GRANT_LABELS[value] }));

/** The most hours ahead a token may expire: 90 days. */
export const MAX_HOURS = 90 * 24;

/** Issues an initial access token, or (given one) edits the three things a replace may change: name, maximum uses, expiry. */
export function TokenForm(props: {
  token?: ResourceObject;
  /** The token endpoint authentication methods this server has enabled (its metadata). */
  methods: string[];
  errors: FormErrors;
  onSubmit: (values: TokenValues) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const editing = props.token;
  const initial = () => ({ grantTypes: [BASE_GRANT_TYPE], authMethods: [...props.methods] });
  const [state, setState] = useState(initial);
  const [busy, setBusy] = useState(false);
  const form = editing ? 'edit-initial-access-token' : 'issue-initial-access-token';

  const submit = async (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const data = new FormData(element);
    const read = (name: string) => fieldText(data, name);
    setBusy(true);
    const ok = await props.onSubmit({
      name: read('name'),
      scopeCeiling: read('scopeCeiling').split(/\s+/).filter(Boolean).join(' '),
      grantTypes: state.grantTypes,
      authMethods: state.authMethods,
      accessTokenLifetime: read('accessTokenLifetime'),
      maxUses: read('maxUses'),
      expiresInHours: read('expiresInHours'),
    });
    setBusy(false);
    if (ok && !editing) {
      element.reset();
      setState(initial());
    }
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate class="wide">
      <h2 id={`${form}-title`}>{editing ? `Edit initial access token “${text(editing, 'name')}”` : 'Issue an initial access token'}</h2>
      <ErrorSummary form={form} errors={props.errors} />
      <TextField
        form={form}
        name="name"
        label="Name"
        value={editing ? text(editing, 'name') : undefined}
        errors={props.errors}
        hint="Who it is for, e.g. Ward 4 gateways"
      />
      {!editing && (
        <>
          <TextField
            form={form}
            name="scopeCeiling"
            label="Scope ceiling"
            errors={props.errors}
            hint="Space-separated: the scopes a client registering with it may ask for, e.g. blood-glucose-level:read"
          />
          <CheckboxGroup
            form={form}
            name="grantTypes"
            label="Grant types"
            options={GRANT_TYPE_CHOICES}
            checked={state.grantTypes}
            onChange={(grantTypes) => setState({ ...state, grantTypes })}
            errors={props.errors}
          />
          <CheckboxGroup
            form={form}
            name="authMethods"
            label="Authentication methods"
            options={props.methods.map((method) => ({ value: method, label: method }))}
            checked={state.authMethods}
            onChange={(authMethods) => setState({ ...state, authMethods })}
            errors={props.errors}
            hint="The token endpoint authentication methods a registering client may choose."
          />
          <TextField
            form={form}
            name="accessTokenLifetime"
            label="Access token lifetime (seconds, optional)"
            inputMode="numeric"
            errors={props.errors}
            hint="Given to every client registered with it: 1 to 86400; empty: the server's ACCESS_TOKEN_TTL. SMART backend services: 300."
          />
        </>
      )}
      <TextField
        form={form}
        name="maxUses"
        label={editing ? 'Maximum uses' : 'Maximum uses (optional)'}
        inputMode="numeric"
        value={editing ? text(editing, 'maxUses') : undefined}
        errors={props.errors}
        hint={editing ? `1 to 100000; used ${text(editing, 'uses')} times so far.` : 'How many clients may register with it: 1 to 100000; empty: 1.'}
      />
      <TextField
        form={form}
        name="expiresInHours"
        label="Expires after (hours from now, optional)"
        inputMode="numeric"
        errors={props.errors}
        hint={editing ? `At most ${MAX_HOURS} (90 days); empty: unchanged.` : `At most ${MAX_HOURS} (90 days); empty: 24.`}
      />
      <FormButtons submit={editing ? 'Save initial access token' : 'Issue initial access token'} busy={busy} onCancel={props.onCancel} />
    </form>
  );
}
