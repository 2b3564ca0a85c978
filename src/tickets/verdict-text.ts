import type { ScopeVerdict, Verdict } from './access-decision.js';

/** An access verdict for an operator's terminal (CLI `explain` without --json). */
export function verdictText(verdict: Verdict): string {
  const audience = Array.isArray(verdict.aud) ? verdict.aud.join(' ') : verdict.aud;
  const lines = [
    verdict.granted
      ? `${verdict.client} gets a token for "${verdict.scope}": lifetime ${verdict.lifetime} s, aud ${audience}`
      : `${verdict.client} is refused a token for "${verdict.scope}"`,
    ...(verdict.purposesOfUse ? [`  purposes of use asserted: ${verdict.purposesOfUse.join(' ')}`] : []),
    ...verdict.scopes.map(scopeLine),
  ];
  if (verdict.missing !== undefined) lines.push(`  missing: ${verdict.missing}`);
  return lines.join('\n') + '\n';
}

function scopeLine(entry: ScopeVerdict): string {
  const smart =
    entry.expandsTo !== undefined
      ? ` (expands to ${entry.expandsTo.length > 0 ? entry.expandsTo.join(' ') : 'nothing'})`
      : entry.denotes !== undefined
        ? ` (denotes ${entry.denotes ?? 'nothing'})`
        : '';
  if (!entry.granted) return `  ${entry.scope}${smart}: refused, ${entry.missing}`;
  if (smart !== '' && !entry.covering) return `  ${entry.scope}${smart}: granted`;
  const covering = (entry.covering ?? []).map(
    (record) =>
      `\n    requested resource ${record.requestedResource.id} (${record.requestedResource.requestedResourceId}, at most ${record.requestedResource.maxPermissionDuration} s)` +
      `, ticket ${record.capabilityTicket.ticketId} "${record.capabilityTicket.ticketName}", purpose "${record.purpose.name}"` +
      (record.purposeOfUse !== undefined ? ` (purpose of use ${record.purposeOfUse})` : '') +
      `, requested-resource-scopes ${record.requestedResourceScopes.join(', ')}, combinations ${record.requestedResourcesCapabilityTickets.join(', ')}`,
  );
  return `  ${entry.scope}${smart}: granted${covering.join('')}`;
}
