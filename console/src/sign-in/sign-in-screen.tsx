import { useState } from 'preact/hooks';
import { ApiClient, ApiError } from '../api/api-client.js';
import { TextField } from '../forms/fields.js';
import { fieldText } from '../forms/form-data.js';
import { NO_ERRORS, type FormErrors } from '../forms/form-errors.js';
import { FormButtons } from '../forms/form-buttons.js';

/** Sign-in with the admin token: checked against the admin interface before it is kept. */
export function SignInScreen(props: { notice?: string; onSignedIn: (token: string) => void }) {
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const token = fieldText(new FormData(event.currentTarget as HTMLFormElement), 'adminToken');
    if (token === '') {
      setErrors({ summary: [], fields: { adminToken: 'Enter the admin token.' } });
      return;
    }
    setBusy(true);
    try {
      await new ApiClient(token, () => undefined).get('/admin/authorization-server');
      props.onSignedIn(token);
    } catch (error) {
      const message = !(error instanceof ApiError)
        ? 'The server could not be reached. Try again.'
        : error.status === 401
          ? 'That admin token is wrong: check it and try again.'
          : error.status === 429
            ? 'Too many wrong tokens from this address: wait a minute, then try again.'
            : error.message;
      // One field, one message: said beside the field (and announced), not again in a summary.
      setErrors({ summary: [], fields: { adminToken: message } });
      document.getElementById('sign-in-adminToken')?.focus();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in" id="main">
      <h1>Authorization server console</h1>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <h2 id="sign-in-title">Sign in</h2>
        <TextField
          form="sign-in"
          name="adminToken"
          label="Admin token"
          type="password"
          autoComplete="off"
          errors={errors}
          alert
          hint="The server's administrative token: ADMIN_TOKEN, or the admin-token file the server's start log names (its DATA_DIR). It is kept in this tab only, until you sign out or close it."
        />
        <FormButtons submit="Sign in" busy={busy} />
      </form>
    </main>
  );
}
