/**
 * Runs `job` every `intervalMs` (and once at once with `now`) without keeping the process alive.
 * A failed run goes to `onError` (else it is dropped) and the next one runs as planned. Answers
 * the function that stops it.
 */
export function runEvery(intervalMs: number, job: () => Promise<unknown>, options: { now?: boolean; onError?: (error: Error) => void } = {}): () => void {
  const run = () => void job().catch((error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))));
  if (options.now) run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
