// The ACL migration (14) gives every bucket of an older data directory BucketOwnerEnforced, which is how Store
// behaved before (ACLs disabled), and keeps the rest of each bucket's configuration; versions have no ACL.

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

describe('ACL migration', () => {
  it('sets BucketOwnerEnforced on existing buckets, keeping their configuration, and adds the acl columns', () => {
    dir = mkdtempSync(join(tmpdir(), 'acl-migration-'));
    const db = new BetterSqlite3(join(dir, 'meta.db'));
    const aclMigration = MIGRATIONS.findIndex((sql) => sql.includes('ALTER TABLE objects ADD COLUMN acl'));
    expect(aclMigration).toBeGreaterThan(0);
    for (let i = 0; i < aclMigration; i++) db.exec(MIGRATIONS[i] as string);
    db.pragma(`user_version = ${aclMigration}`);
    db.exec(
      `INSERT INTO buckets (name, created_at, region, config) VALUES ('plain', 0, 'r', '{}'), ('tagged', 0, 'r', '{"tagging":[{"key":"a","value":"b"}]}')`,
    );
    db.exec(
      `INSERT INTO objects (bucket, key, version_id, is_latest, size, etag, last_modified) VALUES ('plain', 'k', 'null', 1, 1, 'e', 0)`,
    );
    migrate(db);
    const configs = db
      .prepare<[], { name: string; config: string }>('SELECT name, config FROM buckets ORDER BY name')
      .all();
    expect(configs.map((r) => ({ name: r.name, config: JSON.parse(r.config) as unknown }))).toEqual([
      { name: 'plain', config: { ownershipControls: 'BucketOwnerEnforced' } },
      { name: 'tagged', config: { tagging: [{ key: 'a', value: 'b' }], ownershipControls: 'BucketOwnerEnforced' } },
    ]);
    expect(db.prepare('SELECT acl FROM objects').get()).toEqual({ acl: null });
    expect(db.prepare('SELECT acl FROM multipart_uploads').all()).toEqual([]);
    db.close();
  });
});
