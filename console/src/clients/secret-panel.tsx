import { useEffect, useRef, useState } from 'preact/hooks';
import { copyText } from './client-secret.js';

/** A client secret, shown once: it is not kept anywhere, and never readable from the server again. */
export function SecretPanel(props: { clientId: string; secret: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<string>();
  useEffect(() => heading.current?.focus(), [props.secret]);
  const copy = async () => setCopied((await copyText(input.current!)) ? 'Copied to the clipboard.' : 'Select the text and copy it.');
  return (
    <section class="secret">
      <h2 id="secret-title" tabIndex={-1} ref={heading}>
        Secret of {props.clientId}
      </h2>
      <p>Shown once: copy it now and give it to the client's operator. The server keeps only a hash of it.</p>
      <div class="field">
        <label for="client-secret">Client secret</label>
        <input id="client-secret" readOnly value={props.secret} ref={input} autoComplete="off" spellcheck={false} class="secret-value" />
      </div>
      <p id="secret-done-warning" class="warning">
        The secret is shown only now: copy it before you press Done.
      </p>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy secret
        </button>
        <button type="button" class="secondary" onClick={props.onDone} aria-describedby="secret-done-warning">
          Done
        </button>
      </div>
      {copied && <p role="status">{copied}</p>}
    </section>
  );
}
