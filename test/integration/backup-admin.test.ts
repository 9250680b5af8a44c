// Backup and restore through the admin API around the archive itself: manifest v1 archives restore; a restore's
// changes reach the webhook outbox like any write; object lock stops a reset (409, nothing changed) unless the
// archive carries the same locked version; GOVERNANCE yields to bypassGovernance; one restore at a time; the
// read-only role; the schedule's status (never the directory) and run-now joining; boot refusals; a kill -9 during
// a scheduled run leaves no partial snapshot.

import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketVersioningCommand,
  GetObjectCommand,
  PutObjectCommand,
  PutObjectRetentionCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeV1Backup, V1_CONTENT } from '../fixtures/make-v1-backup.mjs';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { downloadArchive, uploadArchive, viewInstance } from '../helpers/backup-fixture.js';
import { uniqueBucket } from '../helpers/clients.js';
import { baseEnv, REPO_ROOT, runServeExpectingExit, tempDir } from '../helpers/server.js';
import { startStore, useStore } from '../helpers/store.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = randomBytes(32).toString('base64url');
const root = tempDir('store-backup-admin-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const snapshots = join(root, 'snapshots');
const receiver = useWebhookReceiver(SECRET);
const store = useStore(() => ({
  env: {
    WEBHOOK_URL: receiver.url,
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_POLL_MS: '200',
    STORE_SCHEDULED_BACKUP_ENABLED: 'true',
    STORE_SCHEDULED_BACKUP_SCOPE: 'instance',
    STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '1440',
    STORE_SCHEDULED_BACKUP_KEEP_LAST: '2',
    STORE_SCHEDULED_BACKUP_DIR: snapshots,
    STORE_TRUSTED_PROXIES: '127.0.0.1',
  },
}));
let reader: string;
let v1: Buffer;

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  expect(
    (await store.adminCall('POST', '/users', { username: 'reader', role: 'read-only', password: 'quiet-observer-42' }))
      .status,
  ).toBe(201);
  reader = await adminLogin(store.server, 'reader', 'quiet-observer-42');
  v1 = await makeV1Backup();
});

describe('manifest v1 archives', () => {
  it('the committed fixture is what the script makes', () => {
    expect(readFileSync(join(REPO_ROOT, 'test/fixtures/v1-backup.zip')).equals(v1)).toBe(true);
  });

  it('restore: current versions with their content type and metadata, unversioned buckets, no configuration', async () => {
    const res = await uploadArchive(store.server, await store.admin(), { bytes: v1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ bucketsRestored: 2, objectsRestored: 3 });
    const [photos] = V1_CONTENT.buckets;
    for (const object of photos!.objects) {
      const got = await store.s3.send(new GetObjectCommand({ Bucket: photos!.name, Key: object.key }));
      expect(Buffer.from(await got.Body!.transformToByteArray()).toString()).toBe(object.body);
      expect(got.VersionId ?? 'null').toBe('null');
      if (object.contentType) expect(got.ContentType).toBe(object.contentType);
      expect(got.Metadata).toEqual(object.metadata ?? {});
      expect(got.LastModified?.toISOString()).toBe('2023-05-01T12:00:00.000Z');
    }
    expect((await store.s3.send(new GetBucketVersioningCommand({ Bucket: photos!.name }))).Status).toBeUndefined();
    // Archives from before ACLs: the buckets behave as they did then, with ACLs disabled.
    const ownership = await store.s3.send(new GetBucketOwnershipControlsCommand({ Bucket: photos!.name }));
    expect(ownership.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    expect((await viewInstance(store.s3)).buckets.map((b) => b.name)).toEqual(['legacy-empty', 'legacy-photos']);
  });

  it('reaches the webhook outbox like any write: one object.created per restored object', async () => {
    await until(
      () => [...receiver.accepted.values()].filter((r) => r.event?.['bucket'] === 'legacy-photos').length >= 3,
      'restore events',
    );
    const events = [...receiver.accepted.values()].map((r) => r.event).filter((e) => e?.['bucket'] === 'legacy-photos');
    expect(events.map((e) => e?.['type'])).toEqual(['object.created', 'object.created', 'object.created']);
    expect(events.map((e) => e?.['key']).sort()).toEqual(V1_CONTENT.buckets[0]!.objects.map((o) => o.key).sort());
  });
});

describe('object lock and a reset', () => {
  it('409 for a version under GOVERNANCE retention the archive lacks, unless bypassGovernance; COMPLIANCE always', async () => {
    const locked = uniqueBucket('lock');
    await store.s3.send(new CreateBucketCommand({ Bucket: locked, ObjectLockEnabledForBucket: true }));
    const until_ = new Date(Date.now() + 86_400_000);
    await store.s3.send(
      new PutObjectCommand({
        Bucket: locked,
        Key: 'gov',
        Body: 'g',
        ObjectLockMode: 'GOVERNANCE',
        ObjectLockRetainUntilDate: until_,
      }),
    );
    const withGov = await downloadArchive(store.server, await store.admin());
    const before = await viewInstance(store.s3);
    const refused = await uploadArchive(store.server, await store.admin(), { bytes: v1 });
    expect(refused.status).toBe(409);
    expect(refused.body['error']).toBe('Conflict');
    expect(await viewInstance(store.s3)).toEqual(before);
    expect(readdirSync(join(store.server.dataDir, 'tmp'))).toEqual([]);
    // A misspelt or malformed parameter is refused, not dropped (which would have reset without the bypass).
    for (const query of ['bypassGovernence=true', 'bypassGovernance=maybe']) {
      const res = await uploadArchive(store.server, await store.admin(), { bytes: v1, path: `/restore?${query}` });
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ error: 'ValidationError' });
    }
    expect(await viewInstance(store.s3)).toEqual(before);
    expect(
      (await uploadArchive(store.server, await store.admin(), { bytes: v1, path: '/restore?bypassGovernance=true' }))
        .status,
    ).toBe(200);
    expect((await viewInstance(store.s3)).buckets.map((b) => b.name)).not.toContain(locked);

    // The archive holding the very same locked version restores over it.
    expect((await uploadArchive(store.server, await store.admin(), { bytes: withGov.bytes })).status).toBe(200);
    expect(await viewInstance(store.s3)).toEqual(before);
    await store.s3.send(new PutObjectCommand({ Bucket: locked, Key: 'comp', Body: 'c' }));
    await store.s3.send(
      new PutObjectRetentionCommand({
        Bucket: locked,
        Key: 'comp',
        Retention: { Mode: 'COMPLIANCE', RetainUntilDate: until_ },
      }),
    );
    const withComp = await viewInstance(store.s3);
    expect(
      (
        await uploadArchive(store.server, await store.admin(), {
          bytes: withGov.bytes,
          path: '/restore?bypassGovernance=true',
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await uploadArchive(store.server, await store.admin(), {
          bytes: v1,
          path: `/buckets/${locked}/restore?bypassGovernance=true`,
        })
      ).status,
    ).toBe(400); // no such bucket in it
    expect(await viewInstance(store.s3)).toEqual(withComp);
    const full = await downloadArchive(store.server, await store.admin());
    expect((await uploadArchive(store.server, await store.admin(), { bytes: full.bytes })).status).toBe(200);
    expect(await viewInstance(store.s3)).toEqual(withComp);
  });
});

describe('concurrency and roles', () => {
  it('one restore at a time: a second one while the first is uploading is 409', async () => {
    const archive = (await downloadArchive(store.server, await store.admin())).bytes;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(archive.subarray(0, 100));
        await gate;
        controller.enqueue(archive.subarray(100));
        controller.close();
      },
    });
    const first = fetch(`${store.server.url}/api/admin/restore`, {
      method: 'POST',
      body: slow,
      duplex: 'half',
      headers: { authorization: `Bearer ${await store.admin()}`, 'content-type': 'application/zip' },
    } as RequestInit);
    await new Promise((r) => setTimeout(r, 300));
    const second = await uploadArchive(store.server, await store.admin(), { bytes: archive });
    expect(second.status).toBe(409);
    release();
    expect((await first).status).toBe(200);
  });

  it('a read-only admin may download backups and read the schedule, and gets 403 for restores and run-now', async () => {
    expect((await downloadArchive(store.server, reader)).status).toBe(200);
    expect((await adminCall(store.server, reader, { method: 'GET', path: '/backup/schedule' })).status).toBe(200);
    expect((await uploadArchive(store.server, reader, { bytes: v1 })).status).toBe(403);
    expect(
      (await uploadArchive(store.server, reader, { bytes: v1, path: '/buckets/legacy-photos/restore' })).status,
    ).toBe(403);
    expect((await adminCall(store.server, reader, { method: 'POST', path: '/backup/schedule/run-now' })).status).toBe(
      403,
    );
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/backup' })).status).toBe(401);
    const head = await fetch(`${store.server.url}/api/admin/backup`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/zip');
  });
});

describe('the schedule', () => {
  it('run-now starts a run (202 started) or joins the one in flight (started: false); the status never shows the directory', async () => {
    const first = await store.adminCall('POST', '/backup/schedule/run-now');
    const second = await store.adminCall('POST', '/backup/schedule/run-now');
    expect(first).toMatchObject({ status: 202, body: { started: true } });
    // Joining a run in flight is pinned down in backup-scheduler.test.ts; here a small instance's run may already
    // have finished when the second request arrives (a loaded machine), and then the second starts its own.
    expect(second).toMatchObject({ status: 202 });
    const runs = (second.body as { started: boolean }).started ? 2 : 1;
    await until(
      async () => ((await store.adminCall('GET', '/backup/schedule')).body as { running: boolean }).running === false,
      'the run',
    );
    const status = await store.adminCall('GET', '/backup/schedule');
    expect(status.body).toMatchObject({
      enabled: true,
      running: false,
      policy: {
        scope: 'instance',
        cron: null,
        intervalMinutes: 1440,
        keepLast: 2,
        maxAgeDays: 30,
        pushToReplication: false,
      },
      snapshots: { count: runs },
      runs: { started: runs, succeeded: runs, failed: 0 },
      lastRun: { result: 'ok', snapshots: runs, error: null },
    });
    expect(JSON.stringify(status.body)).not.toContain(snapshots);
    expect(JSON.stringify(status.body)).not.toContain(store.server.dataDir);
    expect(statSync(snapshots).mode & 0o777).toBe(0o700);
    const files = readdirSync(snapshots);
    expect(files).toHaveLength(runs);
    expect(statSync(join(snapshots, files[0] as string)).mode & 0o777).toBe(0o600);
    // The snapshot is a valid archive: it restores.
    expect(
      (
        await uploadArchive(store.server, await store.admin(), {
          bytes: readFileSync(join(snapshots, files[0] as string)),
        })
      ).status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    const audit = await store.adminCall('GET', '/audit?event=backup.run_started');
    expect((audit.body as { items: unknown[] }).items).toHaveLength(runs + 1);
  });

  it('run-now is 409 when scheduled backups are off', async () => {
    const plain = await startStore();
    expect((await plain.adminCall('POST', '/backup/schedule/run-now')).status).toBe(409);
    expect((await plain.adminCall('GET', '/backup/schedule')).body).toMatchObject({ enabled: false, nextRunAt: null });
  });

  it('refuses to boot on an invalid cron expression, on both or neither of cron and interval', async () => {
    const { env } = await baseEnv(join(tempDir(), 'data'));
    const on = { ...env, STORE_SCHEDULED_BACKUP_ENABLED: 'true', STORE_SCHEDULED_BACKUP_SCOPE: 'buckets' };
    const cases: Record<string, string>[] = [
      { STORE_SCHEDULED_BACKUP_CRON: '0 99 * * *' },
      { STORE_SCHEDULED_BACKUP_CRON: '0 3 * * *', STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '60' },
      {},
    ];
    for (const extra of cases) {
      const run = await runServeExpectingExit({ ...on, ...extra });
      expect(run.code).toBe(78);
      expect(run.output).toMatch(/STORE_SCHEDULED_BACKUP_CRON/);
    }
  });

  it('warns at boot when snapshots should go to the replication target but replication is off', async () => {
    const warned = await startStore({ env: { STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION: 'true' } });
    expect(warned.server.output()).toMatch(/replication is off: snapshots stay local/);
  });

  it('a kill -9 during a run leaves no partial snapshot: the temp file is gone after the restart', async () => {
    const dir = join(root, 'crash-snapshots');
    const crashing = await startStore({
      env: {
        STORE_SCHEDULED_BACKUP_ENABLED: 'true',
        STORE_SCHEDULED_BACKUP_SCOPE: 'instance',
        STORE_SCHEDULED_BACKUP_CRON: '0 0 1 1 *',
        STORE_SCHEDULED_BACKUP_DIR: dir,
      },
    });
    const bucket = await crashing.bucket('crash');
    for (let i = 0; i < 4; i++)
      await crashing.s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: `big-${i}`, Body: randomBytes(32 * 1024 * 1024) }),
      );
    expect((await crashing.adminCall('POST', '/backup/schedule/run-now')).status).toBe(202);
    await until(() => readdirSync(dir).some((n) => n.startsWith('.tmp-')), 'the temp snapshot file', 10_000);
    await crashing.kill();
    expect(readdirSync(dir).filter((n) => !n.startsWith('.tmp-'))).toEqual([]);
    await crashing.restart();
    expect(readdirSync(dir)).toEqual([]);
    const status = await crashing.adminCall('GET', '/backup/schedule');
    expect(status.body).toMatchObject({ snapshots: { count: 0 }, lastRun: null });
  });
});
