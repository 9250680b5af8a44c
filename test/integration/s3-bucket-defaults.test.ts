// The bucket settings of AWS features Store never configures answer AWS's default for a bucket that never had them
// (Requester Pays, Transfer Acceleration, access logging, website, replication), through @aws-sdk/client-s3; setting
// one stays 501 NotImplemented, except Requester Pays set to BucketOwner (a no-op).

import {
  CreateBucketCommand,
  DeleteBucketReplicationCommand,
  DeleteBucketWebsiteCommand,
  GetBucketAccelerateConfigurationCommand,
  GetBucketLoggingCommand,
  GetBucketReplicationCommand,
  GetBucketRequestPaymentCommand,
  GetBucketWebsiteCommand,
  PutBucketAccelerateConfigurationCommand,
  PutBucketLoggingCommand,
  PutBucketRequestPaymentCommand,
  PutBucketWebsiteCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueBucket } from '../helpers/clients.js';
import { useStore } from '../helpers/store.js';
import { rawRequest } from '../helpers/signed-http.js';
import { expectS3Error } from './s3-assert.js';

const store = useStore({ tmpfs: true });
let bucket: string;
const MISSING = 'no-such-bucket-defaults-0';

beforeAll(async () => {
  bucket = uniqueBucket('def');
  await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
});

describe('reading settings Store never configures', () => {
  it('GetBucketRequestPayment: the bucket owner pays', async () => {
    const got = await store.s3.send(new GetBucketRequestPaymentCommand({ Bucket: bucket }));
    expect(got.Payer).toBe('BucketOwner');
    const raw = await rawRequest(store.server, { method: 'GET', path: `/${bucket}?requestPayment`, sign: true });
    expect(raw.text).toContain(
      '<RequestPaymentConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Payer>BucketOwner</Payer></RequestPaymentConfiguration>',
    );
  });

  it('GetBucketAccelerateConfiguration: an empty configuration (no Status)', async () => {
    const got = await store.s3.send(new GetBucketAccelerateConfigurationCommand({ Bucket: bucket }));
    expect(got.$metadata.httpStatusCode).toBe(200);
    expect(got.Status).toBeUndefined();
  });

  it('GetBucketLogging: an empty BucketLoggingStatus (logging off)', async () => {
    const got = await store.s3.send(new GetBucketLoggingCommand({ Bucket: bucket }));
    expect(got.$metadata.httpStatusCode).toBe(200);
    expect(got.LoggingEnabled).toBeUndefined();
    const raw = await rawRequest(store.server, { method: 'GET', path: `/${bucket}?logging`, sign: true });
    expect(raw.text).toContain('<BucketLoggingStatus');
  });

  it('GetBucketWebsite: 404 NoSuchWebsiteConfiguration; DeleteBucketWebsite: 204', async () => {
    await expectS3Error(
      store.s3.send(new GetBucketWebsiteCommand({ Bucket: bucket })),
      'NoSuchWebsiteConfiguration',
      404,
    );
    expect((await store.s3.send(new DeleteBucketWebsiteCommand({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(
      204,
    );
  });

  it('GetBucketReplication: 404 ReplicationConfigurationNotFoundError; DeleteBucketReplication: 204', async () => {
    await expectS3Error(
      store.s3.send(new GetBucketReplicationCommand({ Bucket: bucket })),
      'ReplicationConfigurationNotFoundError',
      404,
    );
    expect((await store.s3.send(new DeleteBucketReplicationCommand({ Bucket: bucket }))).$metadata.httpStatusCode).toBe(
      204,
    );
  });

  it('answers NoSuchBucket for a bucket that does not exist', async () => {
    await expectS3Error(store.s3.send(new GetBucketRequestPaymentCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
    await expectS3Error(store.s3.send(new GetBucketLoggingCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
    await expectS3Error(store.s3.send(new GetBucketWebsiteCommand({ Bucket: MISSING })), 'NoSuchBucket', 404);
  });
});

describe('setting them', () => {
  it('PutBucketRequestPayment BucketOwner is accepted and changes nothing; Requester is NotImplemented', async () => {
    const put = await store.s3.send(
      new PutBucketRequestPaymentCommand({ Bucket: bucket, RequestPaymentConfiguration: { Payer: 'BucketOwner' } }),
    );
    expect(put.$metadata.httpStatusCode).toBe(200);
    await expectS3Error(
      store.s3.send(
        new PutBucketRequestPaymentCommand({ Bucket: bucket, RequestPaymentConfiguration: { Payer: 'Requester' } }),
      ),
      'NotImplemented',
      501,
    );
    expect((await store.s3.send(new GetBucketRequestPaymentCommand({ Bucket: bucket }))).Payer).toBe('BucketOwner');
    const bad = '<RequestPaymentConfiguration><Payer>Nobody</Payer></RequestPaymentConfiguration>';
    const res = await rawRequest(store.server, {
      method: 'PUT',
      path: `/${bucket}?requestPayment`,
      body: bad,
      sign: true,
    });
    expect({ status: res.status, code: res.code }).toEqual({ status: 400, code: 'MalformedXML' });
  });

  it('PutBucketAccelerateConfiguration, PutBucketLogging and PutBucketWebsite stay 501 NotImplemented', async () => {
    await expectS3Error(
      store.s3.send(
        new PutBucketAccelerateConfigurationCommand({ Bucket: bucket, AccelerateConfiguration: { Status: 'Enabled' } }),
      ),
      'NotImplemented',
      501,
    );
    await expectS3Error(
      store.s3.send(new PutBucketLoggingCommand({ Bucket: bucket, BucketLoggingStatus: {} })),
      'NotImplemented',
      501,
    );
    await expectS3Error(
      store.s3.send(
        new PutBucketWebsiteCommand({
          Bucket: bucket,
          WebsiteConfiguration: { IndexDocument: { Suffix: 'index.html' } },
        }),
      ),
      'NotImplemented',
      501,
    );
  });
});
