// The app built in this process (buildApp): the retry path against a real receiver that answers 500, then a 302,
// then never (timeout), then 200, with the backoff jitter injected as 0 so retries follow at once; dead-lettering;
// the WEBHOOK_EVENTS filter; and in-process handlers that throw or hang while writes stay fast and successful.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import Database from 'better-sqlite3';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { ObjectEvent } from '../../src/core/object-event.js';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';
import { putBurst } from '../helpers/put-burst.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = randomBytes(36).toString('base64url');

function outboxRows(dataDir: string): { status: string; attempts: number; last_error: string | null; body: string }[] {
  const db = new Database(join(dataDir, 'meta.db'), { readonly: true });
  try {
    return db.prepare('SELECT status, attempts, last_error, body FROM webhook_outbox ORDER BY id').all() as never;
  } finally {
    db.close();
  }
}

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('retries against a real receiver', () => {
  const receiver = useWebhookReceiver(SECRET);
  const store = useInProcess(
    () => ({
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: SECRET,
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_MAX_ATTEMPTS: '5',
    }),
    { webhookBackoff: { baseMs: 0, capMs: 0 } },
  );

  it('retries a 500, a 302 (never followed) and a timeout, and delivers once the receiver answers 200', async () => {
    const doomed = new Set<string>();
    receiver.respond = (req, n) => {
      if (req.event?.['key'] === 'doomed') {
        doomed.add(req.deliveryId);
        return { status: 503 };
      }
      if (n === 1) return { status: 500 };
      if (n === 2) return { status: 302, headers: { location: `${receiver.url}/elsewhere` } };
      if (n === 3) return 'hang';
      return { status: 200 };
    };
    const s3 = sdkClient(store.server);
    const bucket = uniqueBucket('retry');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'patient', Body: 'p' }));
    await receiver.waitForAccepted(1, 10_000);

    const attempts = receiver.requests.filter((r) => r.event?.['key'] === 'patient');
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((r) => r.deliveryId)).size).toBe(1);
    expect(new Set(attempts.map((r) => r.body.toString())).size).toBe(1); // the same bytes every time
    expect(attempts.every((r) => r.signatureOk)).toBe(true);
    expect(receiver.requests.some((r) => r.path !== '/hook')).toBe(false); // the Location was never requested

    // Outcomes are written in batches a few milliseconds after the answer.
    await until(() => outboxRows(store.server.dataDir)[0]?.status === 'delivered');
    const rows = outboxRows(store.server.dataDir);
    expect(rows).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 4, last_error: 'timed out after 300 ms' }),
    ]);

    // A receiver that never accepts: dead-lettered after WEBHOOK_MAX_ATTEMPTS, and the status says so.
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'doomed', Body: 'd' }));
    await until(() => outboxRows(store.server.dataDir).some((r) => r.status === 'failed'));
    expect(outboxRows(store.server.dataDir)[1]).toMatchObject({
      status: 'failed',
      attempts: 5,
      last_error: 'HTTP 503',
    });
    expect(doomed.size).toBe(1);
    const token = await adminLogin(store.server);
    const status = await adminCall(store.server, token, { method: 'GET', path: '/webhooks/status' });
    expect(status.body).toEqual({
      enabled: true,
      counts: { pending: 0, delivered: 1, failed: 1 },
      oldestPendingAgeSeconds: null,
      lastError: { message: 'HTTP 503', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    });
    s3.destroy();
  });
});

describe('in-process handlers', () => {
  const receiver = useWebhookReceiver(SECRET);
  // Webhooks for deletes only: in-process handlers still hear every type.
  const store = useInProcess(() => ({
    WEBHOOK_URL: receiver.url,
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_EVENTS: 'object.deleted',
    WEBHOOK_POLL_MS: '100',
  }));

  it('keeps writes fast and successful with a throwing and a hanging handler, and hands every event to the others', async () => {
    const s3 = sdkClient(store.server);
    const bucket = uniqueBucket('handlers');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const keys = (prefix: string) => Array.from({ length: 300 }, (_, i) => `${prefix}/${i}`);
    await putBurst(store.server, bucket, { keys: keys('warmup'), concurrency: 16 });
    const baseline = await putBurst(store.server, bucket, { keys: keys('baseline'), concurrency: 16 });

    const created: ObjectEvent[] = [];
    const deleted: ObjectEvent[] = [];
    const completed: ObjectEvent[] = [];
    // Never-settling promises must not pile up: each is tracked for garbage collection.
    const collected = { count: 0 };
    const registry = new FinalizationRegistry<null>(() => {
      collected.count++;
    });
    let hanging = 0;
    store.app.events.onObjectCreated(() => {
      throw new Error('handler exploded');
    });
    store.app.events.onObjectCreated(() => {
      hanging++;
      const never = new Promise<void>(() => undefined);
      registry.register(never, null);
      return never;
    });
    store.app.events.onObjectCreated(async () => {
      throw new Error('handler rejected');
    });
    store.app.events.onObjectCreated((e) => {
      created.push(e);
    });
    store.app.events.onObjectDeleted((e) => {
      deleted.push(e);
    });
    store.app.events.onMultipartCompleted((e) => {
      completed.push(e);
    });

    const withHandlers = await putBurst(store.server, bucket, { keys: keys('handled'), concurrency: 16 });
    // Generous for a shared 2-core machine: the point is "not blocked" (a hang would be seconds per PUT).
    expect(withHandlers).toBeLessThan(baseline * 3 + 2000);
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'handled/0' }));
    const mpu = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mp' }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'mp', UploadId: mpu.UploadId, PartNumber: 1, Body: 'x' }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'mp',
        UploadId: mpu.UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    await new Promise((r) => setTimeout(r, 100));

    expect(created.map((e) => e.key).sort()).toEqual(keys('handled').sort());
    expect(created.every((e) => e.type === 'object.created' && e.bucket === bucket && Object.isFrozen(e))).toBe(true);
    expect(deleted.map((e) => [e.type, e.key])).toEqual([['object.deleted', 'handled/0']]);
    expect(completed.map((e) => [e.type, e.key])).toEqual([['multipart.completed', 'mp']]);
    expect(hanging).toBe(300);
    const failures = store.logs().filter((l) => l['msg'] === 'event handler failed; the event is dropped for it');
    expect(failures).toHaveLength(600);

    // The hanging promises are garbage once dispatched: nothing holds them.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    for (let i = 0; i < 10 && collected.count < 290; i++) {
      gc();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(collected.count).toBeGreaterThanOrEqual(290);

    // The webhook filter: only the delete went out.
    await receiver.waitForAccepted(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.events().map((e) => [e['type'], e['key']])).toEqual([['object.deleted', 'handled/0']]);
    s3.destroy();
  });
});
