import { describe, expect, it } from 'vitest';
import { encodeEventKey, eventMessage, testEventMessage } from './event-message.js';

describe('the event message', () => {
  it('encodes keys as AWS does: form encoding with + for a space, / kept', () => {
    expect(encodeEventKey('dir/a b+c.txt')).toBe('dir/a+b%2Bc.txt');
    expect(encodeEventKey("x=(1)!'~*")).toBe('x%3D%281%29%21%27%7E*');
    expect(encodeEventKey('日本')).toBe('%E6%97%A5%E6%9C%AC');
  });

  it('carries every field of AWS event structure 2.1', () => {
    const body = eventMessage({
      eventName: 'ObjectCreated:Put',
      region: 'eu-west-1',
      eventTime: '2026-01-02T03:04:05.678Z',
      origin: { operation: 'PutObject', requestId: 'req-1', principalId: 'AKIA1', sourceIp: '10.0.0.1' },
      configurationId: 'cfg',
      bucket: 'photos',
      ownerId: 'owner-hash',
      key: 'a b',
      size: 5,
      etag: 'abc',
      versionId: 'v1',
      sequencer: '0000000000000001',
    });
    expect(JSON.parse(body)).toEqual({
      Records: [
        {
          eventVersion: '2.1',
          eventSource: 'aws:s3',
          awsRegion: 'eu-west-1',
          eventTime: '2026-01-02T03:04:05.678Z',
          eventName: 'ObjectCreated:Put',
          userIdentity: { principalId: 'AKIA1' },
          requestParameters: { sourceIPAddress: '10.0.0.1' },
          responseElements: { 'x-amz-request-id': 'req-1', 'x-amz-id-2': 'req-1' },
          s3: {
            s3SchemaVersion: '1.0',
            configurationId: 'cfg',
            bucket: { name: 'photos', ownerIdentity: { principalId: 'owner-hash' }, arn: 'arn:aws:s3:::photos' },
            object: { key: 'a+b', size: 5, eTag: 'abc', versionId: 'v1', sequencer: '0000000000000001' },
          },
        },
      ],
    });
  });

  it('leaves size and eTag out of a removal, and names Store when no request caused the change', () => {
    const record = JSON.parse(
      eventMessage({
        eventName: 'LifecycleExpiration:Delete',
        region: 'us-east-1',
        eventTime: '2026-01-02T03:04:05.678Z',
        origin: undefined,
        configurationId: 'c',
        bucket: 'b',
        ownerId: 'o',
        key: 'k',
        size: undefined,
        etag: undefined,
        versionId: undefined,
        sequencer: '01',
      }),
    ).Records[0];
    expect(record.s3.object).toEqual({ key: 'k', sequencer: '01' });
    expect(record.userIdentity).toEqual({ principalId: 'store' });
  });

  it('builds the s3:TestEvent AWS sends to a newly referenced destination', () => {
    expect(JSON.parse(testEventMessage({ bucket: 'b', time: 't', requestId: 'r' }))).toEqual({
      Service: 'Amazon S3',
      Event: 's3:TestEvent',
      Time: 't',
      Bucket: 'b',
      RequestId: 'r',
      HostId: 'r',
    });
  });
});
