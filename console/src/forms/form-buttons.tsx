/**
 * The buttons at the end of every form: the submit button (disabled while the request runs) and,
 * when the form edits a record, "Cancel" back to the add form.
 */
export function FormButtons(props: { submit: string; busy?: boolean; onCancel?: () => void; cancel?: string }) {
  return (
    <div class="actions form-buttons">
      <button type="submit" disabled={props.busy}>
        {props.submit}
      </button>
      {props.onCancel && (
        <button type="button" class="secondary" onClick={props.onCancel}>
          {props.cancel ?? 'Cancel'}
        </button>
      )}
    </div>
  );
}
