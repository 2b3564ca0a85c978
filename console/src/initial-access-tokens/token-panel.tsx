import { useEffect, useRef, useState } from 'preact/hooks';
import { copyText } from '../clients/client-secret.js';

/**
 * A new initial access token, shown once: the server answered it in the create response's
 * `meta.token` and keeps only its hash; nothing here keeps it either.
 */
export function TokenPanel(props: { name: string; token: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<string>();
  useEffect(() => heading.current?.focus(), [props.token]);
  const copy = async () => setCopied((await copyText(input.current!)) ? 'Copied to the clipboard.' : 'Select the text and copy it.');
  return (
    <section class="secret">
      <h2 id="token-title" tabIndex={-1} ref={heading}>
        Initial access token “{props.name}”
      </h2>
      <p>
        Shown once: copy it now and give it to the operators of the clients that will register with it (as a bearer token to /oauth2/register). The server keeps
        only a hash of it.
      </p>
      <div class="field">
        <label for="initial-access-token-value">Initial access token</label>
        <input id="initial-access-token-value" readOnly value={props.token} ref={input} autoComplete="off" spellcheck={false} class="secret-value" />
      </div>
      <p id="token-done-warning" class="warning">
        The token is shown only now: copy it before you press Done.
      </p>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy token
        </button>
        <button type="button" class="secondary" onClick={props.onDone} aria-describedby="token-done-warning">
          Done
        </button>
      </div>
      {copied && <p role="status">{copied}</p>}
    </section>
  );
}
