// The body of a bucket notification: AWS's event message structure, version 2.1 (docs/notifications.md "Event
// message"), with Store's values where AWS would put account data. One record per message, as AWS sends them.

import type { RequestOrigin } from '../../lib/request-origin.js';

export interface EventMessageInput {
  /** Without the `s3:` prefix, as AWS writes it: ObjectCreated:Put. */
  eventName: string;
  region: string;
  /** ISO 8601 with milliseconds. */
  eventTime: string;
  origin: RequestOrigin | undefined;
  configurationId: string;
  bucket: string;
  ownerId: string;
  key: string;
  size: number | undefined;
  etag: string | undefined;
  versionId: string | undefined;
  sequencer: string;
  /** ObjectRestore:Completed: when the restored copy returns to the remote tier (AWS's glacierEventData). */
  restoreExpiry?: { time: string; storageClass: string };
}

/**
 * A key as AWS writes it in an event: form-URL-encoded (a space is '+', as Java's URLEncoder: letters, digits and
 * `-_.*` kept) except that '/' is kept as well.
 */
export function encodeEventKey(key: string): string {
  return encodeURIComponent(key)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+')
    .replace(/%2F/g, '/');
}

/** The JSON body of one event's message. */
export function eventMessage(input: EventMessageInput): string {
  const requestId = input.origin?.requestId ?? '';
  const object: Record<string, unknown> = { key: encodeEventKey(input.key) };
  if (input.size !== undefined) object.size = input.size;
  if (input.etag !== undefined && input.etag !== '') object.eTag = input.etag;
  if (input.versionId !== undefined) object.versionId = input.versionId;
  object.sequencer = input.sequencer;
  return JSON.stringify({
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: input.region,
        eventTime: input.eventTime,
        eventName: input.eventName,
        userIdentity: { principalId: input.origin?.principalId ?? 'store' },
        requestParameters: { sourceIPAddress: input.origin?.sourceIp ?? '' },
        responseElements: { 'x-amz-request-id': requestId, 'x-amz-id-2': requestId },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: input.configurationId,
          bucket: {
            name: input.bucket,
            ownerIdentity: { principalId: input.ownerId },
            arn: `arn:aws:s3:::${input.bucket}`,
          },
          object,
        },
        ...(input.restoreExpiry === undefined
          ? {}
          : {
              glacierEventData: {
                restoreEventData: {
                  lifecycleRestorationExpiryTime: input.restoreExpiry.time,
                  lifecycleRestoreStorageClass: input.restoreExpiry.storageClass,
                },
              },
            }),
      },
    ],
  });
}

/** The message AWS sends to a destination when a configuration starts to reference it. */
export function testEventMessage(input: { bucket: string; time: string; requestId: string }): string {
  return JSON.stringify({
    Service: 'Amazon S3',
    Event: 's3:TestEvent',
    Time: input.time,
    Bucket: input.bucket,
    RequestId: input.requestId,
    HostId: input.requestId,
  });
}
