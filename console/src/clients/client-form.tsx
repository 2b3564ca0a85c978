import { useState } from 'preact/hooks';
import { text, type ResourceObject } from '../api/documents.js';
import { Checkbox, CheckboxGroup, ErrorSummary, SelectField, TextArea, TextField } from '../forms/fields.js';
import { FormButtons } from '../forms/form-buttons.js';
import { fieldText } from '../forms/form-data.js';
import type { FormErrors, PointerLayout } from '../forms/form-errors.js';
import { GRANT_TYPES, type GrantType } from '../../../src/oauth/grant-types.js';
import { CLIENT_AUTHENTICATION_METHODS, MTLS_AUTH_METHODS, type ClientAuthenticationType } from '../../../src/oauth/client-authentication-methods.js';

export type ClientValues = {
  /** Undefined when editing: the client id, name and authentication are not edited here. */
  clientId?: string;
  clientName: string;
  authenticationType: string;
  allowedScopes: string;
  grantTypes: string[];
  jwksRaw: string;
  jwksUri: string;
  dpopBound: boolean;
  /** tls_client_auth: which subject value the client registers (a tlsClientAuth* attribute), and the value. */
  tlsSubjectAttribute: string;
  tlsSubjectValue: string;
  /** Access tokens bound to the client's certificate (RFC 8705). */
  certificateBound: boolean;
  redirectUris: string[];
  /** Seconds as typed; empty: ACCESS_TOKEN_TTL applies. */
  accessTokenLifetime: string;
  /** A dynamically registered client being edited: whether it may still update or delete its registration (else frozen). */
  registrationManagement?: boolean;
};

/** Where the server's error pointers (`/0/value/attributes/<member>`) land in this form. */
export const CLIENT_LAYOUT: PointerLayout = [
  {
    clientId: 'clientId',
    clientName: 'clientName',
    clientAuthenticationType: 'authenticationType',
    allowedScopes: 'allowedScopes',
    grantTypes: 'grantTypes',
    jwksRaw: 'jwksRaw',
    jwksUri: 'jwksUri',
    redirectUris: 'redirectUris',
    dpopBoundAccessTokens: 'dpopBound',
    tlsClientAuthSubjectDn: 'tlsSubjectValue',
    tlsClientAuthSanDns: 'tlsSubjectValue',
    tlsClientAuthSanUri: 'tlsSubjectValue',
    tlsClientAuthSanIp: 'tlsSubjectValue',
    tlsClientAuthSanEmail: 'tlsSubjectValue',
    tlsClientCertificateBoundAccessTokens: 'certificateBound',
    accessTokenLifetime: 'accessTokenLifetime',
    registrationManagement: 'registrationManagement',
    clientSecret: 'clientId',
    path: 'clientId',
  },
];

// The lists are the server's own (src/oauth/): the labels say what each means to an administrator.
const GRANT_LABELS: Record<GrantType, string> = {
  client_credentials: 'client_credentials',
  refresh_token: 'refresh_token',
  // UMA 2.0 (docs/guides/uma.md): the client may redeem permission tickets for RPTs.
  'urn:ietf:params:oauth:grant-type:uma-ticket': 'UMA grant (urn:ietf:params:oauth:grant-type:uma-ticket)',
  // RFC 8693 (docs/guides/token-exchange.md): a data source's client may exchange a client's token for another data source.
  'urn:ietf:params:oauth:grant-type:token-exchange': 'Token exchange (urn:ietf:params:oauth:grant-type:token-exchange)',
};
const GRANT_TYPE_CHOICES = GRANT_TYPES.map((value) => ({ value, label: GRANT_LABELS[value] }));
const METHOD_LABELS: Record<ClientAuthenticationType, string> = {
  client_secret_basic: 'client_secret_basic (secret, HTTP Basic)',
  client_secret_post: 'client_secret_post (secret, in the body)',
  private_key_jwt: 'private_key_jwt (a signed assertion, no secret)',
  // Mutual TLS (docs/guides/mtls.md): offered only where the server's metadata lists them (MTLS=true).
  tls_client_auth: 'tls_client_auth (a certificate of the network CA, no secret)',
  self_signed_tls_client_auth: 'self_signed_tls_client_auth (a registered self-signed certificate, no secret)',
};
const METHODS = CLIENT_AUTHENTICATION_METHODS.map((value) => ({ value, label: METHOD_LABELS[value] }));
/** The registered value a tls_client_auth certificate must carry (RFC 8705 §2.1.2). */
export const TLS_SUBJECT_ATTRIBUTES = [
  { value: 'tlsClientAuthSubjectDn', label: 'Subject DN (e.g. CN=lab-gw,O=Example Lab,C=DE)' },
  { value: 'tlsClientAuthSanDns', label: 'SAN DNS name' },
  { value: 'tlsClientAuthSanUri', label: 'SAN URI' },
  { value: 'tlsClientAuthSanIp', label: 'SAN IP address' },
  { value: 'tlsClientAuthSanEmail', label: 'SAN email address' },
];
const KEY_METHODS = new Set(['private_key_jwt', 'self_signed_tls_client_auth']);
const CERTIFICATE_METHODS = new Set<string>(MTLS_AUTH_METHODS);

/** What the server supports, from its metadata (undefined until read: then no mutual-TLS choice is offered). */
export type ServerSupport = { methods: string[]; certificateBinding: boolean };

/** The methods to offer: those the server lists; before its metadata is read, those that need no mutual TLS. */
function offeredMethods(support: ServerSupport | undefined) {
  return METHODS.filter((method) => (support ? support.methods.includes(method.value) : !CERTIFICATE_METHODS.has(method.value)));
}

/** Enrols a client, or (given one) edits its scopes, grant types and DPoP binding. */
export function ClientForm(props: {
  client?: ResourceObject;
  support?: ServerSupport;
  errors: FormErrors;
  onSubmit: (values: ClientValues) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const editing = props.client;
  const initial = () => ({
    grantTypes: editing ? text(editing, 'grantTypes').split(' ').filter(Boolean) : ['client_credentials'],
    authenticationType: editing ? text(editing, 'clientAuthenticationType') : 'client_secret_basic',
    dpopBound: editing?.attributes.dpopBoundAccessTokens === true,
    certificateBound: editing?.attributes.tlsClientCertificateBoundAccessTokens === true,
    tlsSubjectAttribute: 'tlsClientAuthSubjectDn',
    registrationManagement: editing?.attributes.registrationManagement !== false,
  });
  const dynamic = editing?.attributes.registeredVia === 'dcr';
  // A client bound already keeps the checkbox, so that the binding can be taken off even without mutual TLS.
  const offerCertificateBinding = props.support?.certificateBinding === true || editing?.attributes.tlsClientCertificateBoundAccessTokens === true;
  const [state, setState] = useState(initial);
  const [busy, setBusy] = useState(false);
  const form = editing ? 'edit-client' : 'enrol-client';

  const submit = async (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const data = new FormData(element);
    const read = (name: string) => fieldText(data, name);
    setBusy(true);
    const ok = await props.onSubmit({
      clientId: editing ? undefined : read('clientId'),
      clientName: read('clientName'),
      authenticationType: state.authenticationType,
      allowedScopes: read('allowedScopes').split(/\s+/).filter(Boolean).join(' '),
      grantTypes: state.grantTypes,
      jwksRaw: read('jwksRaw'),
      jwksUri: read('jwksUri'),
      dpopBound: state.dpopBound,
      tlsSubjectAttribute: state.tlsSubjectAttribute,
      tlsSubjectValue: read('tlsSubjectValue'),
      certificateBound: state.certificateBound,
      redirectUris: read('redirectUris').split(/\s+/).filter(Boolean),
      accessTokenLifetime: read('accessTokenLifetime'),
      registrationManagement: dynamic ? state.registrationManagement : undefined,
    });
    setBusy(false);
    if (ok && !editing) {
      element.reset();
      setState(initial());
    }
  };

  const title = editing ? `Edit ${text(editing, 'clientId')}` : 'Enrol a client';
  return (
    <form onSubmit={(event) => void submit(event)} noValidate class="wide">
      <h2 id={`${form}-title`}>{title}</h2>
      <ErrorSummary form={form} errors={props.errors} />
      {!editing && (
        <>
          <TextField form={form} name="clientId" label="Client ID" errors={props.errors} hint="Printable ASCII, e.g. glucose-app" />
          <TextField form={form} name="clientName" label="Client name" errors={props.errors} />
          <SelectField
            form={form}
            name="authenticationType"
            label="Authentication method"
            options={offeredMethods(props.support)}
            value={state.authenticationType}
            onChange={(authenticationType) => setState({ ...state, authenticationType })}
            errors={props.errors}
          />
          {state.authenticationType === 'tls_client_auth' && (
            <fieldset class="group">
              <legend>What the client's certificate must carry</legend>
              <SelectField
                form={form}
                name="tlsSubjectAttribute"
                label="Matched by"
                options={TLS_SUBJECT_ATTRIBUTES}
                value={state.tlsSubjectAttribute}
                onChange={(tlsSubjectAttribute) => setState({ ...state, tlsSubjectAttribute })}
                errors={props.errors}
              />
              <TextField
                form={form}
                name="tlsSubjectValue"
                label="Registered value"
                errors={props.errors}
                hint="A DN is compared as a name (order of RDNs kept, case ignored)"
              />
            </fieldset>
          )}
          {KEY_METHODS.has(state.authenticationType) && (
            <fieldset class="group">
              <legend>The client's public keys (one of the two)</legend>
              <TextArea form={form} name="jwksRaw" label="JWKS" rows={5} errors={props.errors} hint='A JSON Web Key Set: {"keys": [...]}, public keys only' />
              <TextField form={form} name="jwksUri" label="JWKS URI" type="url" errors={props.errors} hint="https URL where the client publishes its keys" />
            </fieldset>
          )}
        </>
      )}
      <TextField
        form={form}
        name="allowedScopes"
        label="Allowed scopes"
        value={editing ? text(editing, 'allowedScopes') : undefined}
        errors={props.errors}
        hint="Space-separated, e.g. blood-glucose-level:read uma_protection"
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
      <Checkbox
        form={form}
        name="dpopBound"
        label="DPoP-bound access tokens"
        checked={state.dpopBound}
        onChange={(dpopBound) => setState({ ...state, dpopBound })}
        hint="The client must prove possession of a key with every token request (RFC 9449)."
      />
      {offerCertificateBinding && (
        <Checkbox
          form={form}
          name="certificateBound"
          label="Certificate-bound access tokens"
          checked={state.certificateBound}
          onChange={(certificateBound) => setState({ ...state, certificateBound })}
          hint="Tokens are bound to the client's TLS certificate (RFC 8705); needs mutual TLS on the server. Not with DPoP."
        />
      )}
      <TextField
        form={form}
        name="accessTokenLifetime"
        label="Access token lifetime (seconds, optional)"
        inputMode="numeric"
        errors={props.errors}
        value={editing && typeof editing.attributes.accessTokenLifetime === 'number' ? String(editing.attributes.accessTokenLifetime) : undefined}
        hint="1 to 86400; empty: the server's ACCESS_TOKEN_TTL. SMART backend clients: 300."
      />
      {dynamic && (
        <Checkbox
          form={form}
          name="registrationManagement"
          label="The client may update or delete its own registration"
          checked={state.registrationManagement}
          onChange={(registrationManagement) => setState({ ...state, registrationManagement })}
          hint="It registered itself dynamically. Unchecked, its registration is frozen: it can still read it, but only an administrator changes or removes it."
        />
      )}
      {!editing && <TextArea form={form} name="redirectUris" label="Redirect URIs (optional, one per line)" rows={2} errors={props.errors} />}
      <FormButtons submit={editing ? 'Save client' : 'Enrol client'} busy={busy} onCancel={props.onCancel} />
    </form>
  );
}
