// Bucket notifications end to end (docs/notifications.md): webhook targets through the admin API (secrets never shown,
// full-admin to change), Put/GetBucketNotificationConfiguration with AWS's refusals, the s3:TestEvent, and every
// event name fired by the operation that causes it, received by a real receiver that checks each signature.

import { randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectTaggingCommand,
  GetBucketNotificationConfigurationCommand,
  PutBucketNotificationConfigurationCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
  type Event,
  type NotificationConfiguration,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { signIn } from '../helpers/admin-flow.js';
import { formWithFile, signedPolicyFields } from '../helpers/post-form.js';
import { rawRequest } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';
import { expectS3Error } from './s3-assert.js';

const SECRET = randomBytes(36).toString('base64url');
const TOKEN = `tok-${randomBytes(16).toString('hex')}`;

interface S3Record {
  eventVersion: string;
  eventSource: string;
  awsRegion: string;
  eventTime: string;
  eventName: string;
  userIdentity: { principalId: string };
  requestParameters: { sourceIPAddress: string };
  responseElements: Record<string, string>;
  s3: {
    configurationId: string;
    bucket: { name: string; arn: string; ownerIdentity: { principalId: string } };
    object: { key: string; size?: number; eTag?: string; versionId?: string; sequencer: string };
  };
}
const recordOf = (event: Record<string, unknown>): S3Record => (event.Records as S3Record[])[0] as S3Record;

describe('bucket notifications to a webhook target', () => {
  const receiver = useWebhookReceiver(SECRET);
  const store = useStore(() => ({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1' } }));

  async function createTarget(id: string, url = receiver.url): Promise<{ arn: string; body: Record<string, unknown> }> {
    const res = await store.adminCall('POST', '/notification-targets', {
      id,
      kind: 'webhook',
      config: { endpoint: url, secret: SECRET, bearerToken: TOKEN, timeoutMs: 2000 },
    });
    expect(res.status).toBe(201);
    const body = res.body as Record<string, unknown>;
    return { arn: body.arn as string, body };
  }

  async function configure(bucket: string, config: NotificationConfiguration): Promise<void> {
    await store.s3.send(
      new PutBucketNotificationConfigurationCommand({ Bucket: bucket, NotificationConfiguration: config }),
    );
  }

  it('keeps target secrets write-only, and only a full admin may change targets', async () => {
    const { arn, body } = await createTarget('secrets');
    expect(arn).toBe('arn:store:sqs:us-east-1:secrets:webhook');
    expect(body.secretsSet).toEqual(['bearerToken', 'secret']);
    expect(body.config).toEqual({ endpoint: receiver.url, timeoutMs: 2000 });
    const listed = await store.adminCall('GET', '/notification-targets');
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(TOKEN);
    // A PUT without the secrets keeps them.
    const replaced = await store.adminCall('PUT', '/notification-targets/secrets', {
      kind: 'webhook',
      config: { endpoint: receiver.url },
    });
    expect(replaced.status).toBe(200);
    expect((replaced.body as { secretsSet: string[] }).secretsSet).toEqual(['bearerToken', 'secret']);
    // Bad settings: 400 naming the field, never echoing a value.
    const bad = await store.adminCall('POST', '/notification-targets', {
      id: 'bad',
      kind: 'webhook',
      config: { endpoint: 'http://example.com/hook', secret: SECRET },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).not.toContain(SECRET);
    const unknownField = await store.adminCall('POST', '/notification-targets', {
      id: 'bad2',
      kind: 'redis',
      config: { url: 'redis://127.0.0.1:1', key: 'k', format: 'list', colour: 'red' },
    });
    expect(unknownField.status).toBe(400);
    expect(
      (
        await store.adminCall('POST', '/notification-targets', {
          id: 'secrets',
          kind: 'webhook',
          config: { endpoint: receiver.url },
        })
      ).status,
    ).toBe(409);

    const users = await store.adminCall('POST', '/users', { username: 'viewer', role: 'read-only' });
    expect(users.status).toBe(201);
    const password = (users.body as { temporaryPassword: string }).temporaryPassword;
    const viewer = await signIn(store.server, { username: 'viewer', password });
    for (const [method, path, payload] of [
      ['POST', '/notification-targets', { id: 'x', kind: 'webhook', config: { endpoint: receiver.url } }],
      ['PUT', '/notification-targets/secrets', { kind: 'webhook', config: { endpoint: receiver.url } }],
      ['DELETE', '/notification-targets/secrets', undefined],
      ['POST', '/notification-targets/secrets/dead-letters/retry', {}],
    ] as const) {
      const res = await adminCall(store.server, viewer.token, { method, path, body: payload });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/notification-targets' })).status).toBe(
      401,
    );
    // Audit records are written in batches: wait for this one.
    let audit = await store.adminCall('GET', '/audit?event=notification_target.created');
    for (let i = 0; i < 100 && !JSON.stringify(audit.body).includes('secrets'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      audit = await store.adminCall('GET', '/audit?event=notification_target.created');
    }
    expect(JSON.stringify(audit.body)).toContain('secrets');
    expect(JSON.stringify(audit.body)).not.toContain(SECRET);
    expect(JSON.stringify(audit.body)).not.toContain(TOKEN);
    expect((await store.adminCall('DELETE', '/notification-targets/secrets')).status).toBe(204);
    expect((await store.adminCall('GET', '/notification-targets/secrets')).status).toBe(404);
  });

  it('refuses unknown ARNs, bad event names and overlapping rules with InvalidArgument', async () => {
    const bucket = await store.bucket('nref');
    const { arn } = await createTarget('refusals');
    const queue = (extra: Partial<NonNullable<NotificationConfiguration['QueueConfigurations']>[number]>) => ({
      QueueArn: arn,
      Events: ['s3:ObjectCreated:*' as const] as Event[],
      ...extra,
    });
    await expectS3Error(
      configure(bucket, { QueueConfigurations: [queue({ QueueArn: 'arn:store:sqs:us-east-1:nobody:webhook' })] }),
      'InvalidArgument',
      400,
    );
    await expectS3Error(
      configure(bucket, {
        QueueConfigurations: [queue({ Events: ['s3:ObjectCreated:Nope' as 's3:ObjectCreated:*'] })],
      }),
      'InvalidArgument',
      400,
    );
    const filter = (prefix: string, suffix: string) => ({
      Key: {
        FilterRules: [
          { Name: 'prefix' as const, Value: prefix },
          { Name: 'suffix' as const, Value: suffix },
        ],
      },
    });
    await expectS3Error(
      configure(bucket, {
        QueueConfigurations: [
          queue({ Id: 'a', Filter: filter('images/', '.jpg') }),
          queue({ Id: 'b', Events: ['s3:ObjectCreated:Put'], Filter: filter('images/2024/', 'x.jpg') }),
        ],
      }),
      'InvalidArgument',
      400,
    );
    // Non-overlapping: different prefixes, or different events.
    await configure(bucket, {
      QueueConfigurations: [
        queue({ Id: 'a', Filter: filter('images/', '.jpg') }),
        queue({ Id: 'b', Filter: filter('docs/', '.jpg') }),
        queue({ Id: 'c', Events: ['s3:ObjectRemoved:*'], Filter: filter('images/', '.jpg') }),
      ],
    });
    const got = await store.s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
    expect(got.QueueConfigurations?.map((q) => [q.Id, q.QueueArn, q.Events])).toEqual([
      ['a', arn, ['s3:ObjectCreated:*']],
      ['b', arn, ['s3:ObjectCreated:*']],
      ['c', arn, ['s3:ObjectRemoved:*']],
    ]);
    expect(got.QueueConfigurations?.[0]?.Filter?.Key?.FilterRules).toEqual([
      { Name: 'prefix', Value: 'images/' },
      { Name: 'suffix', Value: '.jpg' },
    ]);
    // An empty configuration removes it.
    await configure(bucket, {});
    const empty = await store.s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
    expect(empty.QueueConfigurations).toBeUndefined();
  });

  it('sends a test event, then one signed AWS event message per change, named after the operation', async () => {
    const { arn } = await createTarget('events');
    const bucket = await store.bucket('nev');
    const versioned = await store.bucket('nevv');
    await store.s3.send(
      new PutBucketVersioningCommand({ Bucket: versioned, VersioningConfiguration: { Status: 'Enabled' } }),
    );
    const before = receiver.accepted.size;
    const all = ['s3:ObjectCreated:*', 's3:ObjectRemoved:*', 's3:ObjectTagging:*'] as const;
    await configure(bucket, { QueueConfigurations: [{ Id: 'q', QueueArn: arn, Events: [...all] }] });
    await configure(versioned, { TopicConfigurations: [{ Id: 't', TopicArn: arn, Events: ['s3:ObjectRemoved:*'] }] });
    await receiver.waitForAccepted(before + 2);
    const tests = receiver.events().slice(before);
    expect(tests.map((e) => [e.Event, e.Bucket])).toEqual([
      ['s3:TestEvent', bucket],
      ['s3:TestEvent', versioned],
    ]);

    const put = await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'dir/a b+c.txt', Body: 'hello' }));
    const fields = signedPolicyFields({
      bucket,
      accessKeyId: store.server.credentials.accessKeyId,
      secretAccessKey: store.server.credentials.secretAccessKey,
      conditions: [['starts-with', '$key', '']],
    });
    const posted = await rawRequest(store.server, {
      method: 'POST',
      path: `/${bucket}`,
      ...((form) => ({ headers: { 'content-type': form.contentType }, body: form.body }))(
        formWithFile({ ...fields, key: 'posted' }, { filename: 'p.txt', content: 'posted!' }),
      ),
    });
    expect(posted.status).toBeLessThan(300);
    await store.s3.send(new CopyObjectCommand({ Bucket: bucket, Key: 'copy', CopySource: `${bucket}/posted` }));
    const mpu = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'multi' }));
    const part = await store.s3.send(
      new UploadPartCommand({ Bucket: bucket, Key: 'multi', UploadId: mpu.UploadId, PartNumber: 1, Body: 'part' }),
    );
    await store.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: 'multi',
        UploadId: mpu.UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
      }),
    );
    const tagging = { TagSet: [{ Key: 'k', Value: 'v' }] };
    await store.s3.send(new PutObjectTaggingCommand({ Bucket: bucket, Key: 'copy', Tagging: tagging }));
    await store.s3.send(new DeleteObjectTaggingCommand({ Bucket: bucket, Key: 'copy' }));
    await store.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'copy' }));
    await store.s3.send(new PutObjectCommand({ Bucket: versioned, Key: 'v', Body: 'x' }));
    const marker = await store.s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'v' }));
    await store.s3.send(new DeleteObjectCommand({ Bucket: versioned, Key: 'v', VersionId: marker.VersionId }));

    const expected: [string, string, string][] = [
      [bucket, 'ObjectCreated:Put', 'dir/a+b%2Bc.txt'],
      [bucket, 'ObjectCreated:Post', 'posted'],
      [bucket, 'ObjectCreated:Copy', 'copy'],
      [bucket, 'ObjectCreated:CompleteMultipartUpload', 'multi'],
      [bucket, 'ObjectTagging:Put', 'copy'],
      [bucket, 'ObjectTagging:Delete', 'copy'],
      [bucket, 'ObjectRemoved:Delete', 'copy'],
      [versioned, 'ObjectRemoved:DeleteMarkerCreated', 'v'],
      [versioned, 'ObjectRemoved:Delete', 'v'],
    ];
    await receiver.waitForAccepted(before + 2 + expected.length);
    await new Promise((r) => setTimeout(r, 300)); // nothing more may come (the versioned PUT is not subscribed)
    const records = receiver
      .events()
      .slice(before + 2)
      .map(recordOf);
    const seen = records.map((r) => [r.s3.bucket.name, r.eventName, r.s3.object.key]);
    // Different keys may arrive in any order; each key's in commit order (checked below by sequencer).
    expect([...seen].sort()).toEqual([...expected].sort());
    const first = records.find((r) => r.eventName === 'ObjectCreated:Put') as S3Record;
    expect(first).toMatchObject({
      eventVersion: '2.1',
      eventSource: 'aws:s3',
      awsRegion: 'us-east-1',
      userIdentity: { principalId: store.server.credentials.accessKeyId },
      requestParameters: { sourceIPAddress: '127.0.0.1' },
      s3: {
        configurationId: 'q',
        bucket: { name: bucket, arn: `arn:aws:s3:::${bucket}` },
        object: { key: 'dir/a+b%2Bc.txt', size: 5, eTag: put.ETag?.replace(/"/g, '') },
      },
    });
    expect(first.responseElements['x-amz-request-id']).toMatch(/\S/);
    expect(first.s3.object.sequencer).toMatch(/^[0-9A-F]{16}$/);
    const copyEvents = records.filter((r) => r.s3.object.key === 'copy').map((r) => r.s3.object.sequencer);
    expect([...copyEvents].sort()).toEqual(copyEvents);
    const markerEvent = records.find((r) => r.eventName === 'ObjectRemoved:DeleteMarkerCreated') as S3Record;
    expect(markerEvent.s3.object.versionId).toBe(marker.VersionId);
    expect(markerEvent.s3.configurationId).toBe('t');
    for (const req of receiver.requests.slice(-expected.length)) {
      expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(req.signatureOk).toBe(true);
    }
    const status = await store.adminCall('GET', '/notification-targets/events');
    expect(status.body).toMatchObject({ status: { queued: 0, delivered: expected.length + 2, failed: 0 } });
  });
});
