// What the benchmark's attackers share (bench/README.md: `flood`, `key-flood`, `register-flood`):
// autocannon POSTing to `url` over `connections` connections until SIGTERM, each request's headers
// and body from `nextRequest()`, then one JSON line with the requests, their rate, what `summary()`
// adds, the status codes and the errors. Each attacker is a process of its own, so that the
// measuring process keeps its event loop.
import autocannon from 'autocannon';

export async function flood({ url, connections, nextRequest, summary = () => ({}) }) {
  const started = Date.now();
  const running = autocannon({
    url,
    method: 'POST',
    connections,
    duration: 3600,
    requests: [{ setupRequest: (request) => ({ ...request, ...nextRequest() }) }],
  });
  process.once('SIGTERM', () => running.stop());
  const result = await running;
  const seconds = (Date.now() - started) / 1000;
  console.log(
    JSON.stringify({
      requests: result.requests.total,
      perSecond: Math.round(result.requests.total / seconds),
      ...summary(),
      statusCodes: result.statusCodeStats,
      errors: result.errors,
    }),
  );
}
