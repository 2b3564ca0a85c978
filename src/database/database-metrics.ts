import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import { MetricsService } from '../metrics/metrics.service.js';
import { ChangeFeed } from './change-feed.js';

type PoolState = { totalCount: number; idleCount: number; waitingCount: number };

/**
 * The database's gauges in the application's metrics registry: the pool's connections and the
 * change feed's state. Read when Prometheus scrapes, not kept up to date on every query. The CLI
 * has no metrics: then nothing is registered.
 */
@Injectable()
export class DatabaseMetrics {
  constructor(@InjectDataSource() dataSource: DataSource, changes: ChangeFeed, @Optional() metrics?: MetricsService) {
    if (!metrics) return;
    const registers = [metrics.registry];
    const pool = () => (dataSource.driver as unknown as { master?: PoolState }).master;
    const gauge = (name: string, help: string, read: (state: PoolState) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const state = pool();
          this.set(state ? read(state) : 0);
        },
      });
    gauge('db_pool_connections', 'Connections open in the database pool.', (state) => state.totalCount);
    gauge('db_pool_idle_connections', 'Idle connections in the database pool.', (state) => state.idleCount);
    gauge('db_pool_waiting_requests', 'Queries waiting for a pool connection.', (state) => state.waitingCount);
    new Gauge({
      name: 'cache_invalidation_feed_up',
      help: '1 while the LISTEN/NOTIFY connection is up (caches trusted), 0 while caches are bypassed.',
      registers,
      // With WORKERS > 1: 1 only while every worker's feed is up.
      aggregator: 'min',
      collect() {
        this.set(changes.live ? 1 : 0);
      },
    });
  }
}
