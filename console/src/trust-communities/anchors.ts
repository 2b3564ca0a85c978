// Anchors as an administrator gives them: files (.pem, .crt) read in the browser, and pasted
// text; one file may hold several PEM certificates (a bundle), each of which is one anchor.

const CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Each PEM certificate of a text, in order, with its own line ends (no text around it). */
export function splitPem(text: string): string[] {
  return [...text.replace(/\r\n?/g, '\n').matchAll(CERTIFICATE)].map((match) => `${match[0]}\n`);
}

/** Text that holds something besides PEM certificates and white space (a DER file, a key, a typo). */
function holdsOtherText(text: string): boolean {
  return text.replace(CERTIFICATE, '').trim() !== '';
}

/** A source of anchors: a chosen file's name and text, or (without a name) the pasted text. */
export type AnchorSource = { file?: string; text: string };

/** Where each anchor came from, in words: "ca.pem", "the second certificate of bundle.pem", "the pasted text". */
export type Anchors = { anchors: string[]; origins: string[] };

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
const ordinal = (index: number) => ORDINALS[index] ?? `${index + 1}th`;

/**
 * The anchors of the chosen files and the pasted text, each with its origin; or the refusal of
 * the form's own when a source holds no certificate or other text besides (sent as is, the
 * server would only say "not a certificate" without naming the file).
 */
export function anchorsOf(sources: AnchorSource[]): Anchors | { refusal: string; pasted: boolean } {
  const anchors: string[] = [];
  const origins: string[] = [];
  for (const source of sources) {
    if (!source.file && source.text.trim() === '') continue;
    const found = splitPem(source.text);
    const where = source.file ?? 'the pasted text';
    if (found.length === 0 || holdsOtherText(source.text)) {
      const what = source.file ? `The file ${source.file}` : 'The pasted text';
      const advice = source.file ? ` (a DER file converts with: openssl x509 -inform der -in ${source.file} -out ca.pem)` : '';
      const refusal =
        found.length === 0
          ? `${what} holds no PEM certificate: an anchor starts with -----BEGIN CERTIFICATE-----${advice}.`
          : `${what} holds something besides PEM certificates: give only certificates, each from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----.`;
      return { refusal, pasted: !source.file };
    }
    found.forEach((certificate, index) => {
      anchors.push(certificate);
      origins.push(found.length === 1 ? where : `the ${ordinal(index)} certificate of ${where}`);
    });
  }
  return { anchors, origins };
}

/** The server's reasons an anchor is refused (docs/reference/trust-communities.md), in the console's words. */
const REASONS: [RegExp, string][] = [
  [/must be a CA certificate/, 'is not a CA certificate: an anchor must be the community’s certificate authority (basicConstraints CA:TRUE)'],
  [/has expired/, 'has expired'],
  [/not yet valid/, 'is not valid yet'],
  [/must be one certificate/, 'is not one readable certificate'],
  [/too long/, 'is too long for a certificate'],
];

/**
 * The sentence for a refused anchor: the server names it by index (`anchors[1]: the anchor has
 * expired`), the console by where it came from ("The anchor from ca.pem has expired."); any other
 * refusal of the anchors keeps the server's words.
 */
export function anchorSentence(detail: string, origins: string[]): string | undefined {
  const match = /^anchors\[(\d+)\]: (.*)$/.exec(detail);
  if (!match) return /anchors must hold 1 to (\d+)/.test(detail) ? `Give 1 to ${/1 to (\d+)/.exec(detail)![1]} anchor certificates.` : undefined;
  const origin = origins[Number(match[1])];
  const reason = REASONS.find(([pattern]) => pattern.test(match[2]))?.[1];
  const which = origin ? `The anchor from ${origin}` : `Anchor ${Number(match[1]) + 1}`;
  return `${which} ${reason ?? `is refused: ${match[2]}`}.`;
}

/** Space-separated purpose-of-use codes as the array the server keeps (empty: any purpose). */
export const purposesOf = (text: string): string[] => text.split(/\s+/).filter(Boolean);
