/** A new client secret made in the browser: 256 random bits, base64url (as the server makes them). */
export function newClientSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** Copies to the clipboard; where the Clipboard API is missing (plain http), the selected text. */
export async function copyText(input: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(input.value);
    return true;
  } catch {
    input.select();
    return document.execCommand('copy');
  }
}
