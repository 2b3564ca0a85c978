// A failover's verdict (what must hold for the drill to pass) and its printed figures.

export function verdict(figures) {
  const problems = [];
  if (figures.rowsMissing !== 0) problems.push(`${figures.rowsMissing} rows missing`);
  if (figures.replayedAccepted !== 0) problems.push(`${figures.replayedAccepted} replayed jtis accepted`);
  if (figures.other5xx !== 0) problems.push(`${figures.other5xx} 5xx other than 503`);
  if (figures.other4xx !== 0) problems.push(`${figures.other4xx} 4xx to the load's valid requests (${figures.reasons4xx})`);
  if (figures.noAnswer !== 0) problems.push(`${figures.noAnswer} requests without an answer`);
  if (figures.status503WithoutRetryAfter !== 0) problems.push(`${figures.status503WithoutRetryAfter} 503s without Retry-After`);
  if (!figures.instancesAlive) problems.push('an instance exited');
  if (figures.secondsUntilTokensFlow === undefined) problems.push('tokens did not flow again');
  if (figures.secondsFromWritableToTokens !== undefined && figures.secondsFromWritableToTokens > 5)
    problems.push(`tokens flowed ${figures.secondsFromWritableToTokens} s after the database took writes again (at most 5)`);
  if (figures.crossInstanceMs === undefined || figures.crossInstanceMs > 1_000)
    problems.push(`cross-instance change not seen within 1 s (${figures.crossInstanceMs ?? figures.crossInstanceStatus})`);
  return problems;
}

export function print(figures) {
  const line = (label, value) => process.stdout.write(`  ${label.padEnd(40)} ${value}\n`);
  process.stdout.write(`\n== ${figures.kind} (primary was ${figures.from}, now ${figures.newPrimary}) ==\n`);
  line('requests sent', figures.requests);
  line('resource-scope tokens answered', figures.tokensAnswered);
  line('  their disclosure rows on the new primary', figures.disclosureRowsFound);
  line('private_key_jwt tokens answered', figures.assertionsAnswered);
  line('  their jti rows on the new primary', figures.jtiRowsFound);
  line('rows missing (must be 0)', figures.rowsMissing);
  line(
    'replayed jtis accepted (must be 0)',
    `${figures.replayedAccepted} of ${figures.assertionsAnswered} replayed from ${figures.replayedFrom} (${Object.entries(figures.replayStatuses)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ')})`,
  );
  line('503 temporarily_unavailable', figures.status503);
  line('  why', figures.reasons503);
  line('other 5xx (must be 0)', figures.other5xx);
  line('4xx (must be 0)', `${figures.other4xx}${figures.other4xx ? ` (${figures.reasons4xx})` : ''}`);
  line('no answer (must be 0)', figures.noAnswer);
  line('slowest answer', `${figures.slowestMs} ms (resource-scope ${figures.slowestResourceMs}, private_key_jwt ${figures.slowestAssertionMs})`);
  line('seconds until the database took writes', figures.secondsUntilDatabaseWritable);
  line('seconds until tokens flow again', figures.secondsUntilTokensFlow);
  line('  of which after the database took writes', figures.secondsFromWritableToTokens);
  if (figures.secondsUntilTokensFlowAfterEtcdBack !== undefined) line('  of which after etcd was back', figures.secondsUntilTokensFlowAfterEtcdBack);
  line('cross-instance admin change seen after', figures.crossInstanceMs === undefined ? String(figures.crossInstanceStatus) : `${figures.crossInstanceMs} ms`);
  line('  (its attempts on instance 2)', figures.crossInstanceAttempts ?? '');
  line('both instances still running', figures.instancesAlive);
  line(
    'answers per second from the fault (200/503/other)',
    figures.timeline.map((slot) => `${slot.second}s:${slot.ok}/${slot.unavailable}${slot.other ? `/${slot.other}` : ''}`).join(' '),
  );
  const problems = verdict(figures);
  line('verdict', problems.length === 0 ? 'PASS' : `FAIL: ${problems.join('; ')}`);
}
