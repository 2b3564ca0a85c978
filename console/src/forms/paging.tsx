import { useEffect, useRef, useState } from 'preact/hooks';
import { useLoad, type Loaded } from '../api/use-load.js';

/** The page size of the console's lists (the server allows up to 100). */
export const PAGE_SIZE = 20;

export function pageCount(total: number, size = PAGE_SIZE): number {
  return Math.max(1, Math.ceil(total / size));
}

export type Paged<T> = { loaded: Loaded<T>; page: number; search: string; go: (page: number) => void; searchFor: (text: string) => void };

/** A list read one page at a time, narrowed by a search the server runs (docs/guides/console.md). */
export function usePaged<T>(load: (page: number, search: string) => Promise<T>): Paged<T> {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const loaded = useLoad(() => load(page, search));
  return {
    loaded,
    page,
    search,
    go: (next) => {
      setPage(next);
      loaded.reload();
    },
    searchFor: (text) => {
      setSearch(text);
      setPage(1);
      loaded.reload();
    },
  };
}

// Long enough not to ask the server at every keystroke.
const TYPING_PAUSE_MS = 200;

/** A search box (role searchbox, named "Search …"): the server matches the start of names. */
export function SearchBox(props: { id: string; label: string; hint?: string; value?: string; onSearch: (text: string) => void }) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [text, setText] = useState(props.value ?? '');
  useEffect(() => () => clearTimeout(timer.current), []);
  // The screen may search on the user's behalf (for a record it just created): show what it searched for.
  useEffect(() => setText(props.value ?? ''), [props.value]);
  const onInput = (event: Event) => {
    const typed = (event.currentTarget as HTMLInputElement).value;
    setText(typed);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => props.onSearch(typed.trim()), TYPING_PAUSE_MS);
  };
  return (
    <div class="field search">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="search"
        value={text}
        onInput={onInput}
        autoComplete="off"
        spellcheck={false}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        onKeyDown={(event) => {
          if (event.key !== 'Enter') return;
          event.preventDefault();
          clearTimeout(timer.current);
          props.onSearch(text.trim());
        }}
      />
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
    </div>
  );
}

/** Previous / next page, and where the list stands. */
export function Pager(props: { label: string; page: number; pages: number; onGo: (page: number) => void; previous?: string; next?: string }) {
  if (props.pages <= 1 && props.page <= 1) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" class="secondary" disabled={props.page <= 1} onClick={() => props.onGo(props.page - 1)}>
        {props.previous ?? 'Previous page'}
      </button>
      <span>
        Page {props.page} of {props.pages}
      </span>
      <button type="button" class="secondary" disabled={props.page >= props.pages} onClick={() => props.onGo(props.page + 1)}>
        {props.next ?? 'Next page'}
      </button>
    </nav>
  );
}
