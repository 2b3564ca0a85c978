import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { clusterMetrics, inClusterWorker, shareWithPrimary } from './cluster-metrics.js';
import type { OAuthErrorCode } from '../oauth/oauth-error.js';

/** What a cache lookup reports: the hot path calls one of these, nothing more. */
export type CacheCounter = { hit(): void; miss(): void };
type CacheTally = { cache: string; hits: number; misses: number; reportedHits: number; reportedMisses: number };

// Seconds; token requests take about 1-30 ms, admin requests up to seconds.
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Prometheus metrics of one application (its own registry, so that several apps in one process,
 * as in the e2e tests, never mix their counts). Labelled children are made once and kept, so the
 * token endpoint pays an increment, not a label lookup.
 */
@Injectable()
export class MetricsService implements OnModuleInit {
  readonly registry = new Registry();
  private readonly issued: Counter;
  private readonly refused: Counter<'reason'>;
  private readonly refusedByReason = new Map<string, Counter.Internal>();
  private readonly latency: Histogram<'listener' | 'route' | 'status'>;
  private readonly latencyChildren = new Map<string, Histogram.Internal<'listener' | 'route' | 'status'>>();
  private readonly cacheLookups: Counter<'cache' | 'result'>;
  private readonly cacheTallies: CacheTally[] = [];
  private readonly disclosures: Counter;
  private readonly withdrawn: Counter;
  private readonly udapChecks: Counter<'result'>;
  private readonly udapRegistrations: Counter<'result'>;

  /** Other layers add their own gauges to `registry` (the database's: src/database/database-metrics.ts). */
  constructor() {
    const registers = [this.registry];
    this.issued = new Counter({ name: 'oauth_tokens_issued_total', help: 'Access tokens issued.', registers });
    this.refused = new Counter({
      name: 'oauth_token_requests_refused_total',
      help: 'Token requests refused, by RFC 6749 error code.',
      labelNames: ['reason'],
      registers,
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency, by listener, route and status code.',
      labelNames: ['listener', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const cacheTallies = this.cacheTallies;
    this.cacheLookups = new Counter({
      name: 'cache_lookups_total',
      help: 'In-process cache lookups (clients, consent coverage), by result.',
      labelNames: ['cache', 'result'],
      registers,
      // The lookups are tallied in plain numbers (several per token or introspection) and handed
      // to the counter when it is read: prom-client hashes the labels on every increment.
      collect() {
        for (const tally of cacheTallies) {
          if (tally.hits > tally.reportedHits) this.labels(tally.cache, 'hit').inc(tally.hits - tally.reportedHits);
          if (tally.misses > tally.reportedMisses) this.labels(tally.cache, 'miss').inc(tally.misses - tally.reportedMisses);
          tally.reportedHits = tally.hits;
          tally.reportedMisses = tally.misses;
        }
      },
    });
    this.disclosures = new Counter({ name: 'disclosures_recorded_total', help: 'Disclosure rows committed (access tokens with a resource scope).', registers });
    this.withdrawn = new Counter({
      name: 'tokens_withdrawn_total',
      help: 'Disclosed access tokens withdrawn because an administrative change ended their consent.',
      registers,
    });
    this.udapChecks = new Counter({
      name: 'udap_certificate_checks_total',
      help: "UDAP JWTs' certificate checks (software statements, client assertions), by result: ok or the refusal's code.",
      labelNames: ['result'],
      registers,
    });
    this.udapRegistrations = new Counter({
      name: 'udap_registrations_total',
      help: 'UDAP registrations, by result: created, replaced, cancelled or refused.',
      labelNames: ['result'],
      registers,
    });
  }

  onModuleInit(): void {
    collectDefaultMetrics({ register: this.registry });
    if (inClusterWorker()) shareWithPrimary(this.registry);
  }

  /** Prometheus text: this process's metrics, or, in a worker, every worker's together. */
  scrape(): Promise<string> {
    return inClusterWorker() ? clusterMetrics() : this.registry.metrics();
  }

  tokenIssued(): void {
    this.issued.inc();
  }

  disclosuresRecorded(count: number): void {
    this.disclosures.inc(count);
  }

  tokensWithdrawn(count: number): void {
    if (count > 0) this.withdrawn.inc(count);
  }

  /** `result`: ok, or a UdapCertificateErrorCode (a small fixed set). */
  udapCertificateCheck(result: string): void {
    this.udapChecks.labels(result).inc();
  }

  udapRegistration(result: 'created' | 'replaced' | 'cancelled' | 'refused'): void {
    this.udapRegistrations.labels(result).inc();
  }

  tokenRefused(reason: OAuthErrorCode): void {
    let child = this.refusedByReason.get(reason);
    if (!child) {
      child = this.refused.labels(reason);
      this.refusedByReason.set(reason, child);
    }
    child.inc();
  }

  /** `route` is a template from a small fixed set (see http-metrics.ts), never a raw URL. */
  observeRequest(listener: string, route: string, status: number, seconds: number): void {
    const key = `${listener} ${route} ${status}`;
    let child = this.latencyChildren.get(key);
    if (!child) {
      child = this.latency.labels(listener, route, String(status));
      this.latencyChildren.set(key, child);
    }
    child.observe(seconds);
  }

  cacheCounter(cache: string): CacheCounter {
    const tally: CacheTally = { cache, hits: 0, misses: 0, reportedHits: 0, reportedMisses: 0 };
    this.cacheTallies.push(tally);
    // Both series exist from the start, at 0.
    this.cacheLookups.labels(cache, 'hit');
    this.cacheLookups.labels(cache, 'miss');
    return {
      hit: () => {
        tally.hits += 1;
      },
      miss: () => {
        tally.misses += 1;
      },
    };
  }
}
