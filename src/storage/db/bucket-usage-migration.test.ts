// The bucket_usage migration backfills counters for buckets that already hold objects (a data directory from before
// the migration), and the triggers keep them from then on.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from './database.js';
import { MIGRATIONS } from './migrations.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bucket_usage migration', () => {
  it('backfills existing buckets, then follows inserts', () => {
    dir = mkdtempSync(join(tmpdir(), 'usage-migration-'));
    const db = new BetterSqlite3(join(dir, 'meta.db'));
    const usageMigration = MIGRATIONS.findIndex((sql) => sql.includes('CREATE TABLE bucket_usage'));
    expect(usageMigration).toBeGreaterThan(0);
    for (let i = 0; i < usageMigration; i++) db.exec(MIGRATIONS[i] as string);
    db.pragma(`user_version = ${usageMigration}`);
    db.exec(`INSERT INTO buckets (name, created_at, region) VALUES ('full', 0, 'r'), ('empty', 0, 'r')`);
    const insert = db.prepare(
      `INSERT INTO objects (bucket, key, version_id, is_latest, is_delete_marker, size, etag, last_modified) VALUES ('full', ?, ?, ?, ?, ?, '', 0)`,
    );
    insert.run('a', 'v1', 0, 0, 10);
    insert.run('a', 'v2', 1, 0, 20);
    insert.run('b', 'v3', 1, 1, 0);
    migrate(db);
    const usage = db.prepare('SELECT * FROM bucket_usage ORDER BY bucket').all();
    expect(usage).toEqual([
      { bucket: 'empty', object_count: 0, object_bytes: 0, version_count: 0, version_bytes: 0 },
      { bucket: 'full', object_count: 1, object_bytes: 20, version_count: 3, version_bytes: 30 },
    ]);
    insert.run('c', 'v4', 1, 0, 5);
    expect(db.prepare(`SELECT object_count, object_bytes FROM bucket_usage WHERE bucket = 'full'`).get()).toEqual({
      object_count: 2,
      object_bytes: 25,
    });
    db.close();
  });
});
