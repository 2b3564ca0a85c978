import { useState } from 'preact/hooks';
import { text, type ResourceObject } from '../api/documents.js';
import { ErrorSummary, FileField, SelectField, TextArea, TextField } from '../forms/fields.js';
import { FormButtons } from '../forms/form-buttons.js';
import { fieldText } from '../forms/form-data.js';
import type { FormErrors } from '../forms/form-errors.js';
import type { AnchorSource } from './anchors.js';

export type CommunityValues = {
  name: string;
  communityUri: string;
  /** The chosen files (each read as text) and the pasted text; none given on edit: the anchors stay. */
  sources: AnchorSource[];
  scopeCeiling: string;
  /** Space-separated codes as typed; empty: any purpose of use. */
  purposesOfUse: string;
  revocationCheck: string;
  /** Seconds as typed; empty when adding: the server's 3600. */
  accessTokenLifetime: string;
};

const REVOCATION_CHOICES = [
  { value: 'require', label: 'require' },
  { value: 'off', label: 'off' },
];

const listOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** Adds a trust community, or (given one) edits it: its anchors are replaced only when new ones are given. */
export function CommunityForm(props: {
  community?: ResourceObject;
  errors: FormErrors;
  onSubmit: (values: CommunityValues) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const editing = props.community;
  const [files, setFiles] = useState<File[]>([]);
  // Followed as it changes: a select given only a value would be put back at every re-render.
  const [revocationCheck, setRevocationCheck] = useState(editing ? text(editing, 'revocationCheck') : 'require');
  const [busy, setBusy] = useState(false);
  const form = editing ? 'edit-trust-community' : 'add-trust-community';
  const anchorCount = editing ? listOf(editing.attributes.anchors).length : 0;

  const submit = async (event: Event) => {
    event.preventDefault();
    const element = event.currentTarget as HTMLFormElement;
    const data = new FormData(element);
    const read = (name: string) => fieldText(data, name);
    setBusy(true);
    const fromFiles = await Promise.all(files.map(async (file) => ({ file: file.name, text: await file.text() })));
    const ok = await props.onSubmit({
      name: read('name'),
      communityUri: read('communityUri').trim(),
      sources: [...fromFiles, { text: read('anchorText') }],
      scopeCeiling: read('scopeCeiling').split(/\s+/).filter(Boolean).join(' '),
      purposesOfUse: read('purposesOfUse'),
      revocationCheck,
      accessTokenLifetime: read('accessTokenLifetime').trim(),
    });
    setBusy(false);
    if (ok && !editing) {
      element.reset();
      setFiles([]);
      setRevocationCheck('require');
    }
  };

  return (
    <form onSubmit={(event) => void submit(event)} noValidate class="wide">
      <h2 id={`${form}-title`}>{editing ? `Edit trust community “${text(editing, 'name')}”` : 'Add a trust community'}</h2>
      <ErrorSummary form={form} errors={props.errors} />
      <TextField
        form={form}
        name="name"
        label="Name"
        value={editing ? text(editing, 'name') : undefined}
        errors={props.errors}
        hint="What administrators call it, e.g. Community A"
      />
      <TextField
        form={form}
        name="communityUri"
        label="Community URI"
        inputMode="url"
        value={editing ? text(editing, 'communityUri') : undefined}
        errors={props.errors}
        hint="The URI the community publishes for itself (clients name it as ?community=), e.g. https://community-a.example/udap"
      />
      <FileField
        form={form}
        name="anchorFiles"
        label={editing ? 'New anchor files (optional)' : 'Anchor files'}
        accept=".pem,.crt,.cer"
        multiple
        errors={props.errors}
        onFiles={setFiles}
        hint={
          editing
            ? `The community has ${anchorCount} anchor${anchorCount === 1 ? '' : 's'}. Files or text given here replace them all; none given: they stay.`
            : "The community's CA certificates in PEM (.pem, .crt): one or more files, a file may hold several certificates."
        }
      />
      <TextArea
        form={form}
        name="anchorText"
        label="Or paste anchor certificates (PEM)"
        rows={4}
        errors={props.errors}
        hint="Each from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----; added to the files' certificates."
      />
      <TextField
        form={form}
        name="scopeCeiling"
        label="Scope ceiling"
        value={editing ? text(editing, 'scopeCeiling') : undefined}
        errors={props.errors}
        hint="Space-separated: the scopes a member may register, e.g. system/Patient.rs system/Observation.rs"
      />
      <TextField
        form={form}
        name="purposesOfUse"
        label="Purposes of use (optional)"
        value={editing ? listOf(editing.attributes.purposesOfUse).join(' ') : undefined}
        errors={props.errors}
        hint="Space-separated codes a member may assert, e.g. urn:oid:2.16.840.1.113883.5.8#TREAT; empty: any purpose of use."
      />
      <SelectField
        form={form}
        name="revocationCheck"
        label="Revocation check"
        options={REVOCATION_CHOICES}
        value={revocationCheck}
        onChange={setRevocationCheck}
        errors={props.errors}
        hint="require: each certificate below the anchor is checked against its CRLs, and refused when they cannot be read; off: no revocation check."
      />
      <TextField
        form={form}
        name="accessTokenLifetime"
        label={editing ? 'Access token lifetime (seconds)' : 'Access token lifetime (seconds, optional)'}
        inputMode="numeric"
        value={editing ? text(editing, 'accessTokenLifetime') : undefined}
        errors={props.errors}
        hint={editing ? 'The longest a member’s access token lives: 1 to 3600.' : 'The longest a member’s access token lives: 1 to 3600; empty: 3600.'}
      />
      <FormButtons submit={editing ? 'Save trust community' : 'Add trust community'} busy={busy} onCancel={props.onCancel} />
    </form>
  );
}
