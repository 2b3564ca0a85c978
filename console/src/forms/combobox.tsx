import { useEffect, useRef, useState } from 'preact/hooks';
import type { Choice } from '../api/catalogue.js';
import { messageOf } from './form-errors.js';
import type { FormErrors } from './form-errors.js';

const idOf = (form: string, name: string) => `${form}-${name}`;
// Long enough not to ask the server at every keystroke, short enough to feel immediate.
const TYPING_PAUSE_MS = 150;

export type ComboboxProps = {
  form: string;
  name: string;
  label: string;
  errors: FormErrors;
  hint?: string;
  placeholder?: string;
  /** The server's matches for what was typed (a prefix search). */
  search: (text: string) => Promise<Choice[]>;
  /** The choice made, if any; typing again drops it until another is picked. */
  value?: Choice;
  onChange: (choice: Choice | undefined) => void;
  /** Empty the field after a pick, ready for the next (a picker that adds to a list). */
  clearOnPick?: boolean;
};

/**
 * A searchable picker in the ARIA 1.2 combobox pattern (editable, list autocomplete): typing asks
 * the server, its matches are offered as a listbox, the arrow keys move the active option
 * (aria-activedescendant), Enter picks it, Escape closes the list. The number of matches is read
 * out by a polite live region. Used wherever a form picks one record of a large collection.
 */
export function Combobox(props: ComboboxProps) {
  const id = idOf(props.form, props.name);
  const [text, setText] = useState(props.value?.label ?? '');
  const [options, setOptions] = useState<Choice[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [announcement, setAnnouncement] = useState('');
  const asked = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // Typing drops the choice (onChange(undefined)) and keeps what was typed; a choice set from outside
  // (a reset of the form, a pick) puts its label into the field. A choice that arrives after the
  // user has typed again (the parent had not yet rendered the pick) is stale: the drop follows it.
  const typedSincePick = useRef(false);
  useEffect(() => {
    if (props.value && typedSincePick.current) return;
    setText(props.value?.label ?? (typedSincePick.current ? text : ''));
    // A choice dropped from outside (the form was cleared or reset): the live region must not keep
    // saying "… chosen." for a field that is now empty. Typing drops the choice too, but then the
    // search's own announcement follows.
    if (!props.value && !typedSincePick.current) setAnnouncement('');
  }, [props.value?.id]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const ask = (typed: string) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const question = ++asked.current;
      props.search(typed.trim()).then(
        (found) => {
          if (question !== asked.current) return; // an answer to older typing
          setOptions(found);
          setActive(-1);
          setOpen(true);
          setAnnouncement(found.length === 0 ? 'No match.' : `${found.length} match${found.length === 1 ? '' : 'es'}: use the arrow keys to choose.`);
        },
        (error: unknown) => question === asked.current && setAnnouncement(messageOf(error)),
      );
    }, TYPING_PAUSE_MS);
  };
  const pick = (choice: Choice) => {
    typedSincePick.current = false;
    setText(props.clearOnPick ? '' : choice.label);
    setOpen(false);
    setActive(-1);
    setAnnouncement(`${choice.label} chosen.`);
    props.onChange(choice);
  };
  const onInput = (event: Event) => {
    const typed = (event.currentTarget as HTMLInputElement).value;
    setText(typed);
    typedSincePick.current = true;
    // Always: a pick the parent has not rendered yet is dropped too (a no-op when nothing is chosen).
    props.onChange(undefined);
    ask(typed);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) return ask(text);
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (options.length === 0 ? -1 : (current + step + options.length) % options.length));
    } else if (event.key === 'Enter' && open && active >= 0) {
      event.preventDefault(); // picks, does not submit the form
      pick(options[active]);
    } else if (event.key === 'Escape' && open) {
      event.preventDefault();
      setOpen(false);
    }
  };

  const error = props.errors.fields[props.name];
  const describedBy = [props.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const expanded = open && options.length > 0;
  return (
    <div class={`field combobox${error ? ' invalid' : ''}`}>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={`${props.name}-search`}
        type="text"
        role="combobox"
        autoComplete="off"
        spellcheck={false}
        value={text}
        placeholder={props.placeholder}
        aria-autocomplete="list"
        aria-expanded={expanded ? 'true' : 'false'}
        aria-controls={expanded ? `${id}-listbox` : undefined}
        aria-activedescendant={expanded && active >= 0 ? `${id}-option-${active}` : undefined}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy}
        onInput={onInput}
        onKeyDown={onKeyDown}
        onFocus={() => text === '' && !props.value && ask('')}
        onBlur={() => setOpen(false)}
      />
      {/* Rendered only while open, so the field's label names the field alone. */}
      {expanded && (
        <ul id={`${id}-listbox`} role="listbox" aria-label={`${props.label} suggestions`} class="options">
          {options.map((option, index) => (
            <li
              key={option.id}
              id={`${id}-option-${index}`}
              role="option"
              aria-selected={index === active ? 'true' : 'false'}
              class={index === active ? 'active' : undefined}
              // mousedown, not click: the input keeps the focus (no blur closes the list first).
              onMouseDown={(event) => {
                event.preventDefault();
                pick(option);
              }}
            >
              {option.label}
            </li>
          ))}
        </ul>
      )}
      <p class="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
