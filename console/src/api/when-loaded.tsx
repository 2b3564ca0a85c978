import type { ComponentChild } from 'preact';
import type { Loaded } from './use-load.js';

/**
 * What a screen shows for what it loads: the failure (as an alert), "Loading…" until the value
 * arrives, then what `render` makes of the value.
 */
export function whenLoaded<T>(loaded: Loaded<T>, render: (value: T) => ComponentChild): ComponentChild {
  if (loaded.error)
    return (
      <p class="load-error" role="alert">
        {loaded.error}
      </p>
    );
  if (!loaded.value) return <p class="loading">Loading…</p>;
  return render(loaded.value);
}

/**
 * For a part of a screen that keeps what it loaded before when a reload fails: the failure (as
 * an alert) above it, "Loading…" while there is neither, and what `render` makes of the value.
 */
export function besideLoad<T>(loaded: Loaded<T>, render: (value: T) => ComponentChild): ComponentChild {
  return (
    <>
      {loaded.error && (
        <p class="load-error" role="alert">
          {loaded.error}
        </p>
      )}
      {!loaded.value && !loaded.error && <p class="loading">Loading…</p>}
      {loaded.value ? render(loaded.value) : null}
    </>
  );
}
