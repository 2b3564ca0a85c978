/** What a consent ticket lets a client do, as the console says it. */
export type TicketChain = {
  clientId: string;
  definition: string;
  scopes: string[];
  purpose: string;
  maxPermissionDuration: number;
  ticketId: string;
};

/**
 * One consent ticket as a sentence: "glucose-app may read blood-glucose-level for 'Your doctor
 * follows your blood glucose level', at most 30 min, ticket T-1".
 */
export function ticketSentence(chain: TicketChain): string {
  const scopes = chain.scopes.length === 0 ? 'use no scope of' : `${joinWords(chain.scopes)}`;
  return `${chain.clientId} may ${scopes} ${chain.definition} for '${chain.purpose}', at most ${formatDuration(chain.maxPermissionDuration)}, ticket ${chain.ticketId}`;
}

/** "read", "read and write", "read, write and delete". */
export function joinWords(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** Seconds as an administrator reads them: 45 s, 30 min, 1 h 30 min, 2 d 1 h. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return `${seconds} s`;
  const units: [number, string][] = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = Math.floor(seconds);
  for (const [size, name] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  return parts.length === 0 ? '0 s' : parts.slice(0, 2).join(' ');
}
