import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiServiceUnavailableResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import type { DataSource } from 'typeorm';
import { ChangeFeed } from '../database/change-feed.js';
import { SigningKeysService } from '../keys/signing-keys.service.js';
import { Readiness } from './readiness.js';

// Each check answers within this time or counts as down: a probe must not hang on a lost database.
const CHECK_TIMEOUT_MS = 1_500;
// Passes on a primary that takes writes; a standby, or a primary being demoted, answers SQLSTATE 25006.
const READ_WRITE_PROBE = `DO $$ BEGIN
  IF pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' THEN
    RAISE SQLSTATE '25006' USING MESSAGE = 'the database is read-only';
  END IF;
END $$`;

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: SigningKeysService,
    private readonly readiness: Readiness,
    private readonly changes: ChangeFeed,
  ) {}

  /** The process answers: no dependency is checked, so a database outage restarts nothing. */
  @Get('live')
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness: the process answers HTTP' })
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * Ready to serve tokens: not shutting down, the database answers and takes writes (not a
   * standby, not a primary being demoted: docs/operations/high-availability.md), the change feed
   * listens (so the caches are trusted again after a failover), no migration is pending, a
   * signing key loads.
   */
  @Get('ready')
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: database reachable and writable, change feed listening, migrations applied, signing key loaded' })
  @ApiOkResponse({ description: 'ready' })
  @ApiServiceUnavailableResponse({ description: 'not ready; `error` names the failing checks' })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () =>
        this.probe('serving', 'the server is shutting down', () => (this.readiness.shuttingDown ? Promise.reject(new Error('stopping')) : Promise.resolve())),
      () =>
        this.probe('database', 'the database does not answer or is read-only', async () => {
          // A read-only session raises 25006, as a write would: the session is then dropped from
          // the pool (read-only-sessions.ts), so the next probe reaches whichever node HAProxy
          // routes to by then.
          await this.dataSource.query(READ_WRITE_PROBE);
        }),
      () =>
        this.probe('changeFeed', 'change notifications are not received', () =>
          this.changes.live ? Promise.resolve() : Promise.reject(new Error('not listening')),
        ),
      () =>
        this.probe('migrations', 'migrations are pending or cannot be read', async () => {
          if ((await this.pendingMigrations()).length > 0) throw new Error('pending');
        }),
      () =>
        this.probe('signingKey', 'no signing key can be loaded', async () => {
          await this.keys.signingKey();
        }),
    ]);
  }

  // One query (DataSource.showMigrations would also create the table and log every migration).
  private async pendingMigrations(): Promise<string[]> {
    const table = this.dataSource.options.migrationsTableName ?? 'migrations';
    const rows: { name: string }[] = await this.dataSource.query(`SELECT name FROM "${table}"`);
    const applied = new Set(rows.map((row) => row.name));
    return this.dataSource.migrations.map((migration) => migration.name ?? migration.constructor.name).filter((name) => !applied.has(name));
  }

  // Public port: the answer names the failing check in fixed words, never a database message.
  private probe(key: string, failure: string, check: () => Promise<void>) {
    return this.indicators
      .check(key)
      .attempt(async () => {
        await check().catch(() => {
          throw new Error(failure);
        });
      })
      .withTimeout(CHECK_TIMEOUT_MS);
  }
}
