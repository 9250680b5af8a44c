// A burst of 10,000 PUTs with webhooks on against the built server and a real verifying receiver that fails 5% of
// first attempts: every event arrives, none is lost, and after dedupe on X-Store-Delivery each arrives exactly once.

import { randomBytes } from 'node:crypto';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { putBurst } from '../helpers/put-burst.js';
import { useStore } from '../helpers/store.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = randomBytes(36).toString('base64url');
const COUNT = 10_000;

describe('webhooks under a 10,000-PUT burst', () => {
  const receiver = useWebhookReceiver(SECRET);
  const store = useStore(() => ({
    env: { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: SECRET, WEBHOOK_POLL_MS: '1000' },
  }));

  it('delivers every event exactly once after dedupe, retries included', async () => {
    receiver.respond = (_req, n) => (n === 1 && Math.random() < 0.05 ? { status: 500 } : { status: 200 });
    const s3 = sdkClient(store.server);
    const bucket = uniqueBucket('burst');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    s3.destroy();
    const keys = Array.from({ length: COUNT }, (_, i) => `burst/${String(i).padStart(5, '0')}`);
    const putMs = await putBurst(store.server, bucket, { keys: keys, concurrency: 64 });
    await receiver.waitForAccepted(COUNT, 120_000);
    const got = receiver.events().map((e) => e['key'] as string);
    expect(got).toHaveLength(COUNT);
    expect(new Set(got)).toEqual(new Set(keys));
    expect(receiver.badSignatures).toBe(0);
    const retried = receiver.requests.length - COUNT - receiver.duplicates;
    expect(retried).toBeGreaterThan(0);
    const token = await adminLogin(store.server);
    let status = await adminCall(store.server, token, { method: 'GET', path: '/webhooks/status' });
    for (let i = 0; i < 100 && (status.body as { counts: { pending: number } }).counts.pending > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = await adminCall(store.server, token, { method: 'GET', path: '/webhooks/status' });
    }
    expect(status.body).toMatchObject({
      enabled: true,
      counts: { pending: 0, delivered: COUNT, failed: 0 },
      oldestPendingAgeSeconds: null,
    });
    console.log(
      `10,000 PUTs in ${(putMs / 1000).toFixed(1)} s (${Math.round(COUNT / (putMs / 1000))}/s); ${retried} retried deliveries; ${receiver.duplicates} duplicates`,
    );
  });
});
