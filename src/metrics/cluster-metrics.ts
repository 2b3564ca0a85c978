import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

// Messages between a worker serving /metrics and the primary, beside prom-client's own.
const METRICS_REQUEST = 'authorization-server:metrics-request';
const METRICS_RESPONSE = 'authorization-server:metrics-response';
const TIMEOUT_MS = 5_000;

type MetricsRequest = { type: typeof METRICS_REQUEST; id: number };
type MetricsResponse = { type: typeof METRICS_RESPONSE; id: number; body?: string; error?: string };

/** True in a worker of WORKERS > 1: /metrics must answer for every worker together. */
export function inClusterWorker(): boolean {
  return cluster.isWorker;
}

/**
 * In a worker: this application's registry is what the primary's AggregatorRegistry collects.
 * prom-client answers the primary's requests only once an AggregatorRegistry exists in the
 * worker (its constructor installs the listener), and by default it reports the global registry,
 * which this application does not use.
 */
export function shareWithPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
}

let nextId = 0;
let listening = false;
const pending = new Map<number, (response: MetricsResponse) => void>();

/** In a worker: every worker's metrics, aggregated by the primary (counters and histograms summed). */
export function clusterMetrics(): Promise<string> {
  if (!listening) {
    listening = true;
    process.on('message', (message: MetricsResponse) => {
      if (message?.type === METRICS_RESPONSE) pending.get(message.id)?.(message);
    });
  }
  const id = (nextId += 1);
  return new Promise((resolve, reject) => {
    const timeout = setTimeout(() => settle({ type: METRICS_RESPONSE, id, error: 'the primary process did not answer' }), TIMEOUT_MS);
    const settle = (response: MetricsResponse) => {
      clearTimeout(timeout);
      pending.delete(id);
      if (response.body !== undefined) resolve(response.body);
      else reject(new Error(response.error ?? 'no metrics'));
    };
    pending.set(id, settle);
    process.send!({ type: METRICS_REQUEST, id } satisfies MetricsRequest);
  });
}

/** In the primary: answers workers' requests with the aggregate of every worker. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: MetricsRequest) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (body) => worker.isConnected() && worker.send({ type: METRICS_RESPONSE, id: message.id, body } satisfies MetricsResponse),
      (error: unknown) =>
        worker.isConnected() &&
        worker.send({ type: METRICS_RESPONSE, id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies MetricsResponse),
    );
  });
}
