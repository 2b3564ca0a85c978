import { useCallback, useEffect, useState } from 'preact/hooks';
import { messageOf } from '../forms/form-errors.js';

export type Loaded<T> = { value?: T; error?: string; reload: () => void };

/** Loads what a screen shows, and loads it again after each change (reload). */
export function useLoad<T>(load: () => Promise<T>): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: string }>({});
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setState({ value }),
      (error: unknown) => current && setState((previous) => ({ ...previous, error: messageOf(error) })),
    );
    return () => {
      current = false;
    };
  }, [generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { ...state, reload };
}
