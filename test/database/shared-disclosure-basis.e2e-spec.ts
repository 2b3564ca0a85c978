import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/typeorm-options.js';
import { ENTITIES } from '../../src/entities.js';
import { freshDatabase } from '../support/test-app.js';

/** A database of its own, migrated up to (not including) the shared-basis migration. */
async function databaseBeforeSharedBasis(): Promise<DataSource> {
  const dataSource = await new DataSource(buildDataSourceOptions(await freshDatabase('basis'), ENTITIES)).initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  await undoThroughSharedBasis(dataSource);
  return dataSource;
}

/** Undoes the migrations from the last one back to, and including, the shared-basis migration (later ones come after it). */
async function undoThroughSharedBasis(dataSource: DataSource): Promise<void> {
  for (;;) {
    const [last]: { name: string }[] = await dataSource.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1');
    await dataSource.undoLastMigration({ transaction: 'each' });
    if (last.name === 'SharedDisclosureBasis1765000000000') return;
  }
}

const chain = (ticket: string) => ({
  scope: 'blood-glucose-level:read',
  capabilityTicket: { id: ticket, ticketId: `T-${ticket}` },
  requestedResource: { id: '3', requestedResourceId: 'patient-4711' },
  requestedResourceScopes: { id: '4' },
  requestedResourcesCapabilityTickets: { id: '5' },
  purpose: { id: '1', name: 'Your doctor follows your blood glucose level' },
});

async function insertPerRow(dataSource: DataSource, jti: string, chains: object[], tags: string[]): Promise<void> {
  await dataSource.query(
    `WITH d AS (
       INSERT INTO disclosure (jti, client_key, client_id, scope, aud, resources, issued_at, expires_at, token_type, chains)
       VALUES ($1, 7, 'client-7', 'blood-glucose-level:read', '"https://as.example"', '[]', now(), now() + interval '5 minutes', 'Bearer', $2)
       RETURNING id, expires_at)
     INSERT INTO disclosure_basis (disclosure_id, expires_at, tags) SELECT id, expires_at, $3::bigint[] FROM d`,
    [jti, JSON.stringify(chains), tags],
  );
}

describe('the shared-basis migration (1765000000000)', () => {
  it('moves the chains and tags of each disclosure to one basis row per distinct basis, and keeps every disclosure', async () => {
    const dataSource = await databaseBeforeSharedBasis();
    try {
      await insertPerRow(dataSource, 'jti-a', [chain('2')], ['281474976710658']);
      await insertPerRow(dataSource, 'jti-b', [chain('2')], ['281474976710658']);
      await insertPerRow(dataSource, 'jti-c', [chain('9')], ['281474976710665']);
      await dataSource.runMigrations({ transaction: 'each' });
      const rows: { jti: string; chains: object[]; tags: string[] }[] = await dataSource.query(
        'SELECT d.jti, b.chains, b.tags FROM disclosure d JOIN disclosure_basis b ON b.key = d.basis ORDER BY d.id',
      );
      expect(rows).toEqual([
        { jti: 'jti-a', chains: [chain('2')], tags: ['281474976710658'] },
        { jti: 'jti-b', chains: [chain('2')], tags: ['281474976710658'] },
        { jti: 'jti-c', chains: [chain('9')], tags: ['281474976710665'] },
      ]);
      const [{ bases }]: { bases: number }[] = await dataSource.query('SELECT count(*)::int AS bases FROM disclosure_basis');
      expect(bases).toBe(2);
    } finally {
      await dataSource.destroy();
    }
  });

  it('is undone to a basis row per disclosure, chains back on each disclosure', async () => {
    const dataSource = await databaseBeforeSharedBasis();
    try {
      await insertPerRow(dataSource, 'jti-a', [chain('2')], ['281474976710658']);
      await insertPerRow(dataSource, 'jti-b', [chain('2')], ['281474976710658']);
      await dataSource.runMigrations({ transaction: 'each' });
      await undoThroughSharedBasis(dataSource);
      const rows: { jti: string; chains: object[]; tags: string[] }[] = await dataSource.query(
        'SELECT d.jti, d.chains, b.tags FROM disclosure d JOIN disclosure_basis b ON b.disclosure_id = d.id ORDER BY d.id',
      );
      expect(rows).toEqual([
        { jti: 'jti-a', chains: [chain('2')], tags: ['281474976710658'] },
        { jti: 'jti-b', chains: [chain('2')], tags: ['281474976710658'] },
      ]);
    } finally {
      await dataSource.destroy();
    }
  });
});
