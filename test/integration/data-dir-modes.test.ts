// Store's files are private whatever the umask: with umask 000 and a data directory an operator made 0755, every file
// Store creates in it (meta.db and its WAL and SHM, the lock, the SSE key, blobs, staging and scratch files, scheduled
// snapshots) is 0600 and every directory 0700, while the server runs and after it stops.

import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { downloadArchive, uploadArchive } from '../helpers/backup-fixture.js';
import { waitFor } from '../helpers/replication.js';
import { tempDir } from '../helpers/server.js';
import { startStore } from '../helpers/store.js';

/** Every path under `dir` (itself included) whose permission bits are not 0600 (files) or 0700 (directories). */
function wrongModes(dir: string): string[] {
  const wrong: string[] = [];
  const check = (path: string): void => {
    const st = statSync(path);
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode !== 0o700) wrong.push(`${path} ${mode.toString(8)}`);
      for (const name of readdirSync(path)) check(join(path, name));
    } else if (mode !== 0o600) {
      wrong.push(`${path} ${mode.toString(8)}`);
    }
  };
  check(dir);
  return wrong;
}

describe('data directory permissions', () => {
  it('makes every file 0600 and every directory 0700 under umask 000, in a data directory made 0755', async () => {
    const root = tempDir();
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const store = await startStore({
      dataDir,
      umask: '000',
      env: {
        STORE_SCHEDULED_BACKUP_ENABLED: 'true',
        STORE_SCHEDULED_BACKUP_SCOPE: 'instance',
        STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '60',
      },
    });
    const { server, s3 } = store;
    await s3.send(new CreateBucketCommand({ Bucket: 'modes' }));
    await s3.send(new PutObjectCommand({ Bucket: 'modes', Key: 'inline', Body: 'tiny' }));
    await s3.send(new PutObjectCommand({ Bucket: 'modes', Key: 'file', Body: randomBytes(2 * 1024 * 1024) }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'modes', Key: 'parts' }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket: 'modes', Key: 'parts', UploadId, PartNumber: 1, Body: randomBytes(100_000) }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'modes',
        Key: 'parts',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    const token = await store.admin();
    expect((await adminCall(server, token, { method: 'POST', path: '/backup/schedule/run-now' })).status).toBe(202);
    await waitFor('a scheduled snapshot', () => readdirSync(join(dataDir, 'backups')).some((f) => f.endsWith('.zip')));
    const archive = await downloadArchive(server, token, '/buckets/modes/backup');
    expect((await uploadArchive(server, token, { bytes: archive.bytes, path: '/buckets/modes/restore' })).status).toBe(
      200,
    );

    expect(readdirSync(dataDir)).toEqual(
      expect.arrayContaining([
        'meta.db',
        'meta.db-wal',
        'meta.db-shm',
        'store.lock',
        'sse.key',
        'blobs',
        'tmp',
        'backups',
      ]),
    );
    expect(wrongModes(dataDir)).toEqual([]);
    expect(await store.stop()).toBe(0);
  });
});
