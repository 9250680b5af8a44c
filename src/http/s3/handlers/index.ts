// Operation -> handler. Every resolvable S3 operation has exactly one entry.

import type { S3Context, S3Response } from '../context.js';
import type { Endpoint } from '../endpoints.js';
import { createBucket, deleteBucket, getBucketLocation, headBucket, listBuckets } from './buckets.js';
import { copyObject } from './copy.js';
import { deleteObjects } from './delete-objects.js';
import { listObjects, listObjectsV2 } from './list.js';
import {
  abortMultipartUpload, completeMultipartUpload, createMultipartUpload, listMultipartUploads, listParts, uploadPart, uploadPartCopy,
} from './multipart.js';
import { deleteObject, getObject, putObject } from './objects.js';

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
};
