// A bucket's notification configuration travels in backups (docs/notifications.md "Backups"): restored into a fresh
// instance it is answered back as it was, and it routes to a target with the same ARN once one exists there.

import { randomBytes } from 'node:crypto';
import {
  GetBucketNotificationConfigurationCommand,
  PutBucketNotificationConfigurationCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { downloadArchive, uploadArchive } from '../helpers/backup-fixture.js';
import { useStore } from '../helpers/store.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';

const SECRET = randomBytes(36).toString('base64url');

describe('notification configurations in backups', () => {
  const receiver = useWebhookReceiver(SECRET);
  const source = useStore();
  const fresh = useStore();

  it('are restored as they were, and re-linked to a target of the same ARN', async () => {
    const target = { id: 'orders', kind: 'webhook', config: { endpoint: receiver.url, secret: SECRET } };
    const created = await source.adminCall('POST', '/notification-targets', target);
    const arn = (created.body as { arn: string }).arn;
    const bucket = await source.bucket('nbk');
    const config = {
      QueueConfigurations: [
        {
          Id: 'created',
          QueueArn: arn,
          Events: ['s3:ObjectCreated:*' as const],
          Filter: { Key: { FilterRules: [{ Name: 'prefix' as const, Value: 'in/' }] } },
        },
      ],
    };
    await source.s3.send(
      new PutBucketNotificationConfigurationCommand({ Bucket: bucket, NotificationConfiguration: config }),
    );
    const archive = await downloadArchive(source.server, await source.admin(), `/buckets/${bucket}/backup`);
    expect(archive.status).toBe(200);

    const restored = await uploadArchive(fresh.server, await fresh.admin(), {
      bytes: archive.bytes,
      path: `/buckets/${bucket}/restore`,
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    const got = await fresh.s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
    expect(got.QueueConfigurations).toEqual(config.QueueConfigurations);

    // No target there yet: nothing is queued. Once one exists with the same ARN, events route to it.
    await fresh.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'in/before', Body: 'x' }));
    expect((await fresh.adminCall('POST', '/notification-targets', target)).status).toBe(201);
    const before = receiver.accepted.size;
    await fresh.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'in/after', Body: 'x' }));
    await receiver.waitForAccepted(before + 1);
    await new Promise((r) => setTimeout(r, 300));
    const keys = receiver
      .events()
      .slice(before)
      .map((e) => (e.Records as { s3: { object: { key: string } } }[])[0]?.s3.object.key);
    expect(keys).toEqual(['in/after']);
  });
});
