// The AWS CLI's put-bucket-notification-configuration against Store (docs/notifications.md): every event name and
// wildcard and both filter rules through Queue, Topic and CloudFunction configurations, read back with
// get-bucket-notification-configuration; an unknown ARN refused as AWS refuses it; and a PUT the CLI configured
// delivered to a real webhook receiver.

import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useStore, useTempDir } from '../helpers/store.js';
import { useWebhookReceiver } from '../helpers/webhook-receiver.js';
import { awsClis } from './aws-cli-bins.js';
import { awsCliEnv, run, runOk, type RunResult } from './support.js';

const CLI = awsClis().find((c) => c.label === 'v2');
const SECRET = randomBytes(36).toString('base64url');
const EVENTS = [
  's3:ObjectCreated:Put',
  's3:ObjectCreated:Post',
  's3:ObjectCreated:Copy',
  's3:ObjectCreated:CompleteMultipartUpload',
  's3:ObjectRemoved:Delete',
  's3:ObjectRemoved:DeleteMarkerCreated',
  's3:ObjectTagging:Put',
  's3:ObjectTagging:Delete',
  's3:ObjectRestore:Post',
  's3:ObjectRestore:Completed',
  's3:LifecycleExpiration:Delete',
  's3:LifecycleExpiration:DeleteMarkerCreated',
  's3:LifecycleTransition',
];
const WILDCARDS = [
  's3:ObjectCreated:*',
  's3:ObjectRemoved:*',
  's3:ObjectTagging:*',
  's3:ObjectRestore:*',
  's3:LifecycleExpiration:*',
];

describe.skipIf(!CLI?.bin)('aws s3api put-bucket-notification-configuration', () => {
  const receiver = useWebhookReceiver(SECRET);
  const store = useStore();
  const work = useTempDir('store-e2e-notify-');
  let env: Record<string, string>;
  let arn: string;
  const aws = (args: string[]): Promise<RunResult> =>
    run(CLI?.bin ?? 'aws', ['--endpoint-url', store.server.url, ...args], { env, cwd: work });
  const awsOk = (args: string[]): Promise<RunResult> =>
    runOk(CLI?.bin ?? 'aws', ['--endpoint-url', store.server.url, ...args], { env, cwd: work });
  const configure = (bucket: string, config: unknown): Promise<RunResult> => {
    const file = join(work, `${bucket}.json`);
    writeFileSync(file, JSON.stringify(config));
    return aws([
      's3api',
      'put-bucket-notification-configuration',
      '--bucket',
      bucket,
      '--notification-configuration',
      `file://${file}`,
    ]);
  };

  beforeAll(async () => {
    const home = join(work, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config'), '[default]\nregion = us-east-1\n');
    env = awsCliEnv(home, { credentials: store.server.credentials });
    const res = await store.adminCall('POST', '/notification-targets', {
      id: 'cli',
      kind: 'webhook',
      config: { endpoint: receiver.url, secret: SECRET },
    });
    expect(res.status).toBe(201);
    arn = (res.body as { arn: string }).arn;
  });

  it('takes every event name, every wildcard and both filter rules, and reads them back', async () => {
    const bucket = await store.bucket('clin');
    // One configuration per event (disjoint prefixes, as overlapping rules for one event are refused).
    const rule = (event: string, i: number) => ({
      Id: `rule-${i}`,
      Events: [event],
      Filter: {
        Key: {
          FilterRules: [
            { Name: 'prefix', Value: `p${i}/` },
            { Name: 'suffix', Value: '.txt' },
          ],
        },
      },
    });
    const all = [...EVENTS, ...WILDCARDS];
    const config = {
      QueueConfigurations: all.slice(0, 6).map((e, i) => ({ ...rule(e, i), QueueArn: arn })),
      TopicConfigurations: all.slice(6, 12).map((e, i) => ({ ...rule(e, i + 6), TopicArn: arn })),
      LambdaFunctionConfigurations: all.slice(12).map((e, i) => ({ ...rule(e, i + 12), LambdaFunctionArn: arn })),
    };
    const put = await configure(bucket, config);
    expect(put.code, put.stderr).toBe(0);
    const got = JSON.parse(
      (await awsOk(['s3api', 'get-bucket-notification-configuration', '--bucket', bucket])).stdout,
    ) as typeof config;
    expect(got).toEqual(config);
  });

  it('refuses an unknown ARN, a bad event name and overlapping rules with InvalidArgument', async () => {
    const bucket = await store.bucket('clibad');
    const cases = [
      { QueueConfigurations: [{ QueueArn: 'arn:store:sqs:us-east-1:nobody:webhook', Events: ['s3:ObjectCreated:*'] }] },
      { QueueConfigurations: [{ QueueArn: arn, Events: ['s3:ObjectCreated:Nope'] }] },
      {
        QueueConfigurations: [
          { Id: 'a', QueueArn: arn, Events: ['s3:ObjectCreated:*'] },
          { Id: 'b', QueueArn: arn, Events: ['s3:ObjectCreated:Put'] },
        ],
      },
    ];
    for (const config of cases) {
      const res = await configure(bucket, config);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain('InvalidArgument');
    }
  });

  it('delivers what a configuration made by the CLI asks for', async () => {
    const bucket = await store.bucket('clid');
    const before = receiver.accepted.size;
    const res = await configure(bucket, {
      QueueConfigurations: [{ QueueArn: arn, Events: ['s3:ObjectCreated:*'] }],
    });
    expect(res.code, res.stderr).toBe(0);
    const file = join(work, 'hello.txt');
    writeFileSync(file, 'hello');
    await awsOk(['s3', 'cp', file, `s3://${bucket}/hello.txt`]);
    await receiver.waitForAccepted(before + 2);
    const [test, created] = receiver.events().slice(before);
    expect(test).toMatchObject({ Event: 's3:TestEvent', Bucket: bucket });
    expect(created).toMatchObject({
      Records: [{ eventName: 'ObjectCreated:Put', s3: { bucket: { name: bucket }, object: { key: 'hello.txt' } } }],
    });
  });
});
