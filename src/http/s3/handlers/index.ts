// Operation -> handler. Every resolvable S3 operation has exactly one entry.

import type { S3Context, S3Response } from '../context.js';
import type { Endpoint } from '../endpoints.js';
import * as config from './bucket-config.js';
import * as defaults from './bucket-defaults.js';
import { createBucket, deleteBucket, getBucketLocation, headBucket, listBuckets } from './buckets.js';
import { copyObject } from './copy.js';
import { deleteObjects } from './delete-objects.js';
import { listObjects, listObjectsV2 } from './list.js';
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  listMultipartUploads,
  listParts,
  uploadPart,
  uploadPartCopy,
} from './multipart.js';
import { deleteObject, getObject, putObject } from './objects.js';
import { restoreObject } from './restore.js';
import * as lock from './object-lock.js';
import * as sub from './object-subresources.js';
import { listObjectVersions } from './versions.js';
import { postObjectUnbound } from './post-object.js';

type Handler<E extends Endpoint> = (ctx: S3Context<E>) => Promise<S3Response>;
type HandlerTable = { [Op in Exclude<Endpoint['op'], 'NotImplemented'>]: Handler<Extract<Endpoint, { op: Op }>> };

export const HANDLERS: HandlerTable = {
  ListBuckets: listBuckets,
  CreateBucket: createBucket,
  HeadBucket: headBucket,
  DeleteBucket: deleteBucket,
  GetBucketLocation: getBucketLocation,
  ListObjects: listObjects,
  ListObjectsV2: listObjectsV2,
  ListMultipartUploads: listMultipartUploads,
  DeleteObjects: deleteObjects,
  PutObject: putObject,
  CopyObject: copyObject,
  GetObject: getObject,
  HeadObject: getObject,
  DeleteObject: deleteObject,
  CreateMultipartUpload: createMultipartUpload,
  UploadPart: uploadPart,
  UploadPartCopy: uploadPartCopy,
  CompleteMultipartUpload: completeMultipartUpload,
  AbortMultipartUpload: abortMultipartUpload,
  ListParts: listParts,
  // Bucket configuration
  GetBucketVersioning: config.getBucketVersioning,
  PutBucketVersioning: config.putBucketVersioning,
  // Get/Put/DeleteBucket<Part> of each configuration part (core/bucket-config-parts.ts)
  ...config.CONFIG_PART_HANDLERS,
  GetBucketPolicyStatus: config.getBucketPolicyStatus,
  GetBucketAcl: config.getBucketAcl,
  PutBucketAcl: config.putBucketAcl,
  GetBucketNotificationConfiguration: config.getBucketNotificationConfiguration,
  PutBucketNotificationConfiguration: config.putBucketNotificationConfiguration,
  GetBucketRequestPayment: defaults.getBucketRequestPayment,
  PutBucketRequestPayment: defaults.putBucketRequestPayment,
  GetBucketAccelerateConfiguration: defaults.getBucketAccelerateConfiguration,
  GetBucketLogging: defaults.getBucketLogging,
  GetBucketWebsite: defaults.getBucketWebsite,
  DeleteBucketWebsite: defaults.deleteNothing,
  GetBucketReplication: defaults.getBucketReplication,
  DeleteBucketReplication: defaults.deleteNothing,
  // Versions, object lock, object subresources, browser uploads
  ListObjectVersions: listObjectVersions,
  GetObjectLockConfiguration: lock.getObjectLockConfiguration,
  PutObjectLockConfiguration: lock.putObjectLockConfiguration,
  GetObjectRetention: lock.getObjectRetention,
  PutObjectRetention: lock.putObjectRetention,
  GetObjectLegalHold: lock.getObjectLegalHold,
  PutObjectLegalHold: lock.putObjectLegalHold,
  GetObjectTagging: sub.getObjectTagging,
  PutObjectTagging: sub.putObjectTagging,
  DeleteObjectTagging: sub.deleteObjectTagging,
  GetObjectAcl: sub.getObjectAcl,
  PutObjectAcl: sub.putObjectAcl,
  GetObjectAttributes: sub.getObjectAttributes,
  RestoreObject: restoreObject,
  PostObject: postObjectUnbound,
};
