import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { FormErrors } from './form-errors.js';

const idOf = (form: string, name: string) => `${form}-${name}`;

type FieldProps = {
  form: string;
  name: string;
  label: string;
  errors: FormErrors;
  hint?: string;
  /** Announce the field's error as it appears (a one-field form has no summary to do it). */
  alert?: boolean;
};

/** The error beside a field, and the attributes that tie it to the control. */
function described(form: string, name: string, errors: FormErrors, hint?: string, alert?: boolean) {
  const error = errors.fields[name];
  const ids = [hint ? `${idOf(form, name)}-hint` : '', error ? `${idOf(form, name)}-error` : ''].filter(Boolean).join(' ');
  return {
    control: { id: idOf(form, name), name, 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': ids || undefined },
    after: (
      <>
        {hint && (
          <p class="hint" id={`${idOf(form, name)}-hint`}>
            {hint}
          </p>
        )}
        {error && (
          <p class="field-error" id={`${idOf(form, name)}-error`} role={alert ? 'alert' : undefined}>
            {error}
          </p>
        )}
      </>
    ),
  };
}

/**
 * A field the component follows (onInput) is controlled; any other keeps what the administrator
 * typed across re-renders (a controlled value would be put back whenever another field changes).
 */
function initial(value: string | undefined, onInput: unknown) {
  return onInput ? { value } : { defaultValue: value };
}

export function TextField(
  props: FieldProps & {
    value?: string;
    type?: 'text' | 'password' | 'url' | 'search';
    required?: boolean;
    autoComplete?: string;
    inputMode?: 'numeric' | 'url' | 'text';
    onInput?: (value: string) => void;
  },
) {
  const { control, after } = described(props.form, props.name, props.errors, props.hint, props.alert);
  // Preact types an input's attributes as a union keyed by `type`; one literal type lets the
  // spread attributes check against a single member (the element accepts all four types alike).
  const type = (props.type ?? 'text') as 'text';
  return (
    <div class={`field${props.errors.fields[props.name] ? ' invalid' : ''}`}>
      <label for={control.id}>{props.label}</label>
      <input
        {...control}
        type={type}
        {...initial(props.value, props.onInput)}
        required={props.required}
        autoComplete={props.autoComplete ?? 'off'}
        inputMode={props.inputMode}
        spellcheck={false}
        onInput={props.onInput && ((event) => props.onInput!(event.currentTarget.value))}
      />
      {after}
    </div>
  );
}

export function TextArea(props: FieldProps & { value?: string; rows?: number; onInput?: (value: string) => void }) {
  const { control, after } = described(props.form, props.name, props.errors, props.hint);
  return (
    <div class={`field${props.errors.fields[props.name] ? ' invalid' : ''}`}>
      <label for={control.id}>{props.label}</label>
      <textarea
        {...control}
        rows={props.rows ?? 3}
        {...initial(props.value, props.onInput)}
        spellcheck={false}
        onInput={props.onInput && ((event) => props.onInput!(event.currentTarget.value))}
      />
      {after}
    </div>
  );
}

/** A file chooser (the browser reads the chosen files; nothing is uploaded until the form is sent). */
export function FileField(props: FieldProps & { accept?: string; multiple?: boolean; onFiles: (files: File[]) => void }) {
  const { control, after } = described(props.form, props.name, props.errors, props.hint);
  return (
    <div class={`field${props.errors.fields[props.name] ? ' invalid' : ''}`}>
      <label for={control.id}>{props.label}</label>
      <input
        {...control}
        type="file"
        accept={props.accept}
        multiple={props.multiple}
        onChange={(event) => props.onFiles([...(event.currentTarget.files ?? [])])}
      />
      {after}
    </div>
  );
}

export type Option = { value: string; label: string };

export function SelectField(
  props: FieldProps & { options: Option[]; value?: string; required?: boolean; placeholder?: string; onChange?: (value: string) => void },
) {
  const { control, after } = described(props.form, props.name, props.errors, props.hint);
  return (
    <div class={`field${props.errors.fields[props.name] ? ' invalid' : ''}`}>
      <label for={control.id}>{props.label}</label>
      <select {...control} value={props.value} required={props.required} onChange={props.onChange && ((event) => props.onChange!(event.currentTarget.value))}>
        {props.placeholder !== undefined && <option value="">{props.placeholder}</option>}
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {after}
    </div>
  );
}

/**
 * A group of checkboxes under one legend; the error of the group sits under the legend. Warnings
 * (what the choice will not do, though it may be saved) sit beside it and are read with the group.
 */
export function CheckboxGroup(
  props: FieldProps & { options: Option[]; checked: string[]; onChange: (checked: string[]) => void; empty?: string; warnings?: string[] },
) {
  const error = props.errors.fields[props.name];
  const base = idOf(props.form, props.name);
  const errorId = `${base}-error`;
  const warnings = props.warnings ?? [];
  const describedBy = [props.hint ? `${base}-hint` : '', warnings.length > 0 ? `${base}-warnings` : '', error ? errorId : ''].filter(Boolean).join(' ');
  const toggle = (value: string, on: boolean) => props.onChange(on ? [...props.checked, value] : props.checked.filter((item) => item !== value));
  return (
    <fieldset class={`field${error ? ' invalid' : ''}`} id={base} tabIndex={-1} aria-describedby={describedBy || undefined}>
      <legend>{props.label}</legend>
      {props.hint && (
        <p class="hint" id={`${base}-hint`}>
          {props.hint}
        </p>
      )}
      {props.options.length === 0 && <p class="hint">{props.empty ?? 'Nothing to choose from yet.'}</p>}
      {props.options.map((option) => (
        <div class="check" key={option.value}>
          <input
            type="checkbox"
            id={`${idOf(props.form, props.name)}-${option.value}`}
            name={props.name}
            value={option.value}
            checked={props.checked.includes(option.value)}
            onChange={(event) => toggle(option.value, event.currentTarget.checked)}
          />
          <label for={`${idOf(props.form, props.name)}-${option.value}`}>{option.label}</label>
        </div>
      ))}
      {warnings.length > 0 && (
        <div class="field-warning" id={`${base}-warnings`}>
          {warnings.map((warning) => (
            <p key={warning}>{warning}</p>
          ))}
        </div>
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

export function Checkbox(props: { form: string; name: string; label: string; checked: boolean; onChange: (checked: boolean) => void; hint?: string }) {
  const id = idOf(props.form, props.name);
  return (
    <div class="field check">
      <input
        type="checkbox"
        id={id}
        name={props.name}
        checked={props.checked}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onChange={(event) => props.onChange(event.currentTarget.checked)}
      />
      <label for={id}>{props.label}</label>
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/**
 * The summary of a refused change, at the top of its form: it takes the focus, and each entry
 * moves the focus to the field it concerns.
 */
export function ErrorSummary(props: { form: string; errors: FormErrors }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (props.errors.summary.length > 0) box.current?.focus();
  }, [props.errors]);
  if (props.errors.summary.length === 0) return null;
  return (
    <div class="error-summary" role="alert" tabIndex={-1} ref={box}>
      <h3 id={`${props.form}-summary-title`}>The change was refused: nothing was saved</h3>
      <ul>
        {props.errors.summary.map((entry, index) => (
          <li key={index}>
            {entry.field ? (
              <a
                href={`#${idOf(props.form, entry.field)}`}
                onClick={(event) => {
                  event.preventDefault();
                  document.getElementById(idOf(props.form, entry.field!))?.focus();
                }}
              >
                {entry.message}
              </a>
            ) : (
              entry.message
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A status line read out by screen readers (success messages). */
export function Status(props: { children?: ComponentChildren }) {
  return (
    <p class="status" role="status">
      {props.children}
    </p>
  );
}
