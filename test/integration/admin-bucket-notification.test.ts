// A bucket's notification configuration through the admin API (docs/admin-buckets-objects.md "Notifications"): the
// same document the S3 plane sets, refusals in words that name the configurations and the ARN, full-admin to change,
// audited, and shown in the bucket's details.

import { GetBucketNotificationConfigurationCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { useInProcess } from '../helpers/in-process.js';

const app = useInProcess({ AUDIT_FLUSH_MS: '250' });
let admin: string;
let reader: string;
let arn: string;

const call = (token: string, request: { method: string; path: string; body?: unknown }) =>
  adminCall(app.server, token, request);

beforeAll(async () => {
  admin = await adminLogin(app.server);
  const created = await call(admin, {
    method: 'POST',
    path: '/users',
    body: { username: 'events-reader', role: 'read-only', password: 'quiet-observer-42' },
  });
  expect(created.status).toBe(201);
  reader = await adminLogin(app.server, 'events-reader', 'quiet-observer-42');
  // A target on a loopback port nothing listens on: its deliveries fail, which this file does not look at.
  const target = await call(admin, {
    method: 'POST',
    path: '/notification-targets',
    body: { id: 'orders', kind: 'webhook', config: { endpoint: 'http://127.0.0.1:9/hook' } },
  });
  expect(target.status).toBe(201);
  arn = (target.body as { arn: string }).arn;
});

async function newBucket(): Promise<string> {
  const name = uniqueBucket('an');
  expect((await call(admin, { method: 'POST', path: '/buckets', body: { name } })).status).toBe(201);
  return name;
}

const path = (bucket: string): string => `/buckets/${bucket}/notification`;

describe('the bucket notification routes', () => {
  it('set, read and remove a configuration, the same one the S3 plane answers', async () => {
    const bucket = await newBucket();
    expect((await call(admin, { method: 'GET', path: path(bucket) })).body).toEqual({ rules: [] });
    expect((await call(admin, { method: 'GET', path: `/buckets/${bucket}` })).body).toMatchObject({
      configs: { notification: false },
    });
    const rules = [
      { id: 'images', arn, events: ['s3:ObjectCreated:*'], prefix: 'images/', suffix: '.jpg' },
      { arn, events: ['s3:ObjectRemoved:Delete'], kind: 'Topic' as const },
    ];
    const set = await call(admin, { method: 'PUT', path: path(bucket), body: { rules } });
    expect(set.status).toBe(200);
    const stored = (set.body as { rules: Array<{ id: string }> }).rules;
    expect(stored[0]).toEqual({ ...rules[0], kind: 'Queue' });
    expect(stored[1]).toEqual({ ...rules[1], id: expect.stringMatching(/^store-/) });
    expect((await call(reader, { method: 'GET', path: path(bucket) })).body).toEqual(set.body);
    expect((await call(admin, { method: 'GET', path: `/buckets/${bucket}` })).body).toMatchObject({
      configs: { notification: true },
    });

    const s3 = await sdkClient(app.server).send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
    expect(s3.QueueConfigurations).toEqual([
      {
        Id: 'images',
        QueueArn: arn,
        Events: ['s3:ObjectCreated:*'],
        Filter: {
          Key: {
            FilterRules: [
              { Name: 'prefix', Value: 'images/' },
              { Name: 'suffix', Value: '.jpg' },
            ],
          },
        },
      },
    ]);
    expect(s3.TopicConfigurations?.[0]).toMatchObject({ Id: stored[1]?.id, TopicArn: arn });

    expect((await call(admin, { method: 'DELETE', path: path(bucket) })).status).toBe(204);
    expect((await call(admin, { method: 'GET', path: path(bucket) })).body).toEqual({ rules: [] });
    const emptied = await sdkClient(app.server).send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
    expect(emptied.QueueConfigurations ?? []).toEqual([]);
  });

  it('refuses an ARN that names no target, naming it and the configuration, and stores nothing', async () => {
    const bucket = await newBucket();
    const missing = 'arn:store:sqs:us-east-1:nobody:webhook';
    const res = await call(admin, {
      method: 'PUT',
      path: path(bucket),
      body: { rules: [{ id: 'lost', arn: missing, events: ['s3:ObjectCreated:Put'] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'InvalidArgument' });
    const message = (res.body as { message: string }).message;
    expect(message).toContain(missing);
    expect(message).toContain('configuration lost');
    expect((await call(admin, { method: 'GET', path: path(bucket) })).body).toEqual({ rules: [] });
  });

  it('refuses overlapping configurations and duplicate Ids, naming them', async () => {
    const bucket = await newBucket();
    const overlap = await call(admin, {
      method: 'PUT',
      path: path(bucket),
      body: {
        rules: [
          { id: 'all', arn, events: ['s3:ObjectCreated:*'], prefix: 'a/' },
          { id: 'puts', arn, events: ['s3:ObjectCreated:Put'], prefix: 'a/b/' },
        ],
      },
    });
    expect(overlap.status).toBe(400);
    expect(overlap.body).toMatchObject({ error: 'InvalidArgument' });
    expect((overlap.body as { message: string }).message).toMatch(/^Configurations all and puts overlap/);

    const twice = await call(admin, {
      method: 'PUT',
      path: path(bucket),
      body: {
        rules: [
          { id: 'same', arn, events: ['s3:ObjectCreated:*'], prefix: 'a/' },
          { id: 'same', arn, events: ['s3:ObjectRemoved:*'], prefix: 'b/' },
        ],
      },
    });
    expect(twice.status).toBe(400);
    expect((twice.body as { message: string }).message).toBe('Two configurations have the same Id. (same)');

    const unknown = await call(admin, {
      method: 'PUT',
      path: path(bucket),
      body: { rules: [{ arn, events: ['s3:ObjectCreated:Patch'] }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'ValidationError' });
  });

  it('refuses changes to a read-only admin and audits a full admin', async () => {
    const bucket = await newBucket();
    const body = { rules: [{ id: 'r', arn, events: ['s3:ObjectCreated:*'] }] };
    expect((await call(reader, { method: 'PUT', path: path(bucket), body })).status).toBe(403);
    expect((await call(reader, { method: 'DELETE', path: path(bucket) })).status).toBe(403);
    expect((await call(admin, { method: 'GET', path: path(bucket) })).body).toEqual({ rules: [] });
    expect((await call(admin, { method: 'PUT', path: path(bucket), body })).status).toBe(200);
    expect((await call(admin, { method: 'DELETE', path: path(bucket) })).status).toBe(204);
    await expect
      .poll(async () => {
        const page = await call(admin, { method: 'GET', path: `/audit?bucket=${bucket}` });
        return (page.body as { items: Array<{ event: string; details: { kind?: string } }> }).items
          .filter((i) => i.details.kind === 'notification')
          .map((i) => i.event);
      })
      .toEqual(['bucket.config_deleted', 'bucket.config_updated']);
  });
});
