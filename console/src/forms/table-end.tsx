import { Pager, pageCount, PAGE_SIZE } from './paging.js';

/**
 * The one "Remove" control of the console: a button (never a link), in the danger style, named
 * for what it removes ("Remove scope read of blood-glucose-level"), wherever a list offers it.
 */
export function RemoveButton(props: { label: string; onRemove: () => void; disabled?: boolean }) {
  return (
    <button type="button" class="danger" aria-label={props.label} disabled={props.disabled} onClick={props.onRemove}>
      Remove
    </button>
  );
}

/**
 * The end of every paged list: which records the page shows of how many, and the pager. Lists
 * give it their label ("Client pages") and their server total; it says nothing for an empty list.
 */
export function TableEnd(props: {
  label: string;
  page: number;
  total: number;
  shown: number;
  onGo: (page: number) => void;
  size?: number;
  previous?: string;
  next?: string;
  /** What the records are called ("clients", "events"). */
  noun?: string;
}) {
  const size = props.size ?? PAGE_SIZE;
  if (props.total === 0 || props.shown === 0) return null;
  const first = (props.page - 1) * size + 1;
  const last = Math.min(first + props.shown - 1, Math.max(props.total, first));
  return (
    <div class="table-end">
      <p class="count">{`${first === last ? first : `${first}–${last}`} of ${props.total}${props.noun ? ` ${props.noun}` : ''}`}</p>
      <Pager label={props.label} page={props.page} pages={pageCount(props.total, size)} onGo={props.onGo} previous={props.previous} next={props.next} />
    </div>
  );
}
