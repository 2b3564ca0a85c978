import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

type Listener = (table: string | undefined) => void;
type ReconnectListener = () => void;

const CHANNEL = 'cache_invalidation';
const PING_INTERVAL_MS = 500;
const RECONNECT_DELAY_MS = 250;

/**
 * Hears of every change to cached tables through PostgreSQL LISTEN/NOTIFY. While the listening
 * connection is down, `live` is false and caches must not be trusted; on (re)connection every
 * subscriber is told to drop everything (`table` undefined), since notifications may have
 * been missed meanwhile.
 */
@Injectable()
export class ChangeFeed implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ChangeFeed.name);
  private readonly listeners = new Set<Listener>();
  private readonly reconnectListeners = new Set<ReconnectListener>();
  private client?: pg.Client;
  private pingTimer?: NodeJS.Timeout;
  private reconnectTimer?: NodeJS.Timeout;
  private stopped = false;
  private connectedOnce = false;
  private isLive = false;
  private backendPid?: number;
  private connectionCount = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get live(): boolean {
    return this.isLive;
  }

  /**
   * How many times the feed has started listening: a reader that must know it missed no change
   * (RevocationState) reads afresh when this moves, since what came between two connections was never heard.
   */
  get connections(): number {
    return this.connectionCount;
  }

  /** The PostgreSQL backend of the LISTEN session while it is live (pg_stat_activity's pid): what an operator, or a test, would terminate to cut this instance's feed. */
  get listenerPid(): number | undefined {
    return this.isLive ? this.backendPid : undefined;
  }

  subscribe(listener: Listener): void {
    this.listeners.add(listener);
  }

  /**
   * Called each time the feed comes back after it was lost (a failover, a cut connection): work
   * whose notifications may have been missed meanwhile (pending withdrawals) is to be re-run.
   */
  onReconnect(listener: ReconnectListener): void {
    this.reconnectListeners.add(listener);
  }

  async onModuleInit(): Promise<void> {
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.reconnectTimer);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.config.databaseUrl,
      keepAlive: true,
      application_name: 'authorization-server-listener',
      connectionTimeoutMillis: 2_000,
    });
    // Held for the life of the process: an error on it (a failover cuts it) must never go unhandled.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => this.emit(message.payload));
    try {
      await client.connect();
      // A standby (or a primary being demoted, still reached for a moment during a failover) hears
      // no notification of the new primary's changes: not live until the connection reaches a primary.
      const { rows } = await client.query<{ standby: boolean; pid: number }>('SELECT pg_is_in_recovery() AS standby, pg_backend_pid() AS pid');
      if (rows[0]?.standby) throw new Error('standby');
      this.backendPid = rows[0]?.pid;
      await client.query(`LISTEN ${CHANNEL}`);
    } catch {
      client.end().catch(() => undefined);
      this.scheduleReconnect();
      return;
    }
    this.client = client;
    this.connectionCount += 1;
    this.isLive = true;
    this.emit(undefined);
    if (this.connectedOnce) {
      this.logger.log('change notifications restored');
      for (const listener of this.reconnectListeners) listener();
    }
    this.connectedOnce = true;
    this.pingTimer = setInterval(() => this.ping(client), PING_INTERVAL_MS);
    this.pingTimer.unref();
  }

  // A half-open connection delivers nothing and reports nothing: probe it. A node demoted under
  // it (Patroni losing its leader key) hears no more changes either: that counts as lost too.
  private ping(client: pg.Client): void {
    const timeout = setTimeout(() => this.lost(client), PING_INTERVAL_MS * 2);
    client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby').then(
      ({ rows }) => {
        clearTimeout(timeout);
        if (rows[0]?.standby) this.lost(client);
      },
      () => {
        clearTimeout(timeout);
        this.lost(client);
      },
    );
  }

  private lost(client: pg.Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.isLive = false;
    clearInterval(this.pingTimer);
    this.emit(undefined);
    client.end().catch(() => undefined);
    if (!this.stopped) {
      this.logger.warn('change notifications lost; caches bypassed until reconnected');
      this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    this.reconnectTimer = setTimeout(() => void this.connect(), RECONNECT_DELAY_MS);
    this.reconnectTimer.unref();
  }

  /**
   * A change this process has just committed: its own caches drop everything now (or what is
   * derived from `table`, when the change was to that table alone), so its next request reads the
   * change, ahead of the notification that reaches every instance.
   */
  committedHere(table?: string): void {
    this.emit(table);
  }

  private emit(table: string | undefined): void {
    for (const listener of this.listeners) listener(table);
  }
}
