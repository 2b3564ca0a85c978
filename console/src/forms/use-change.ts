import { useState } from 'preact/hooks';
import type { ApiClient } from '../api/api-client.js';
import type { Operation, OperationResult } from '../api/documents.js';
import { formErrorsOf, NO_ERRORS, type FormErrors, type PointerLayout, type Wording } from './form-errors.js';

/** What one change says and does once the server accepted it (or refused it). */
export type ChangeOutcome = {
  /** The status line shown when it succeeded. */
  done: string;
  /** Which form field each operation's members fill, so refusals land beside their fields. */
  layout?: PointerLayout;
  /** Runs when it succeeded (empty the form, read the list again...). */
  onDone?: (results: OperationResult[]) => void;
  /** The form's own words for the server's refusals (else the server's). */
  wording?: Wording;
  /** Runs when it was refused. */
  onFailed?: () => void;
};

export type Change = {
  /** The errors of the last refused change; none once a change succeeded. */
  errors: FormErrors;
  setErrors: (errors: FormErrors) => void;
  /** Sends the operations as one request; resolves to whether the server accepted them. */
  run: (operations: Operation[] | Promise<Operation[]>, outcome: ChangeOutcome) => Promise<boolean>;
};

/**
 * One form's (or list's) changes: each sends its operations, then shows the status line or the
 * server's errors. `clearStatusOnError` hides the previous status line when a change is refused.
 */
export function useChange(api: ApiClient, setStatus: (status: string | undefined) => void, options: { clearStatusOnError?: boolean } = {}): Change {
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const run = async (operations: Operation[] | Promise<Operation[]>, outcome: ChangeOutcome) => {
    try {
      const results = await api.patch(await operations);
      setErrors(NO_ERRORS);
      setStatus(outcome.done);
      outcome.onDone?.(results);
      return true;
    } catch (error) {
      if (options.clearStatusOnError) setStatus(undefined);
      setErrors(formErrorsOf(error, outcome.layout, outcome.wording));
      outcome.onFailed?.();
      return false;
    }
  };
  return { errors, setErrors, run };
}
