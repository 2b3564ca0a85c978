import { useEffect, useRef, useState } from 'preact/hooks';
import { useLoad, type Loaded } from '../api/use-load.js';

/** The page size of the console's lists (the server allows up to 100). */
export const PAGE_SIZE = 20;

export function pageCount(total: number, size = PAGE_SIZE): number {
  return Math.max(1, Math.ceil(total / size));
}

export type Paged<T> = {
  loaded: Loaded<T>;
  page: number;
  search: string;
  /** The id of the record just saved, shown highlighted among the others until the list moves on. */
  highlight?: string;
  go: (page: number) => void;
  searchFor: (text: string) => void;
  /** After a save: the whole list again (first page, no search), with the saved record highlighted. */
  showSaved: (id: string) => void;
};

/** A list read one page at a time, narrowed by a search the server runs (docs/guides/console.md). */
export function usePaged<T>(load: (page: number, search: string, highlight?: string) => Promise<T>): Paged<T> {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [highlight, setHighlight] = useState<string>();
  const loaded = useLoad(() => load(page, search, highlight));
  return {
    loaded,
    page,
    search,
    highlight,
    go: (next) => {
      setPage(next);
      setHighlight(undefined);
      loaded.reload();
    },
    searchFor: (text) => {
      setSearch(text);
      setPage(1);
      setHighlight(undefined);
      loaded.reload();
    },
    showSaved: (id) => {
      setSearch('');
      setPage(1);
      setHighlight(id);
      loaded.reload();
    },
  };
}

/**
 * A page of records with the saved one among them: when the page (newest first) does not hold it
 * (callers may choose low ids), it is put first, fetched by id.
 */
export async function withSaved<R extends { id: string }>(
  rows: R[],
  highlight: string | undefined,
  fetch: (id: string) => Promise<R | undefined>,
): Promise<R[]> {
  if (!highlight || rows.some((row) => row.id === highlight)) return rows;
  const saved = await fetch(highlight);
  return saved ? [saved, ...rows.slice(0, PAGE_SIZE - 1)] : rows;
}

/** Scrolls the highlighted row into view once it is shown. */
export function useShowSaved(highlight: string | undefined, shown: unknown): void {
  useEffect(() => {
    if (highlight) document.querySelector('[data-saved="true"]')?.scrollIntoView({ block: 'center' });
  }, [highlight, shown]);
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

/** The attributes of a list row: the record just saved is marked (and styled) as such. */
export function savedRow(saved: boolean): { 'data-saved'?: 'true'; class?: string; 'aria-current'?: 'true' } {
  return saved ? { 'data-saved': 'true', class: 'saved', 'aria-current': 'true' } : {};
}
