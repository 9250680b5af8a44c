// Real S3 clients pointed at a running test server.

import { S3Client } from '@aws-sdk/client-s3';
import * as Minio from 'minio';
import { randomBytes } from 'node:crypto';
import type { RunningServer } from './server.js';

/** @aws-sdk/client-s3 with its default settings (checksums, aws-chunked trailers), path-style. */
export function sdkClient(
  server: RunningServer,
  overrides: { accessKeyId?: string; secretAccessKey?: string } = {},
): S3Client {
  return new S3Client({
    endpoint: server.url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: {
      accessKeyId: overrides.accessKeyId ?? server.credentials.accessKeyId,
      secretAccessKey: overrides.secretAccessKey ?? server.credentials.secretAccessKey,
    },
    maxAttempts: 1,
  });
}

export function minioClient(server: RunningServer): Minio.Client {
  return new Minio.Client({
    endPoint: '127.0.0.1',
    port: server.port,
    useSSL: false,
    accessKey: server.credentials.accessKeyId,
    secretKey: server.credentials.secretAccessKey,
    region: 'us-east-1',
    pathStyle: true,
  });
}

/** A bucket name no other test uses. */
export function uniqueBucket(prefix = 'b'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`;
}
