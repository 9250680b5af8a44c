// The hostile harness's operations by name: one function per S3 operation (or multipart flow) and admin upload
// route, each drawing everything it sends from its plan item.

import { adminMultipart, adminUpload } from './admin-ops.js';
import { postObject } from './form-ops.js';
import { deleteObject, deleteObjects, objectTagging } from './metadata-ops.js';
import { multipartUpload } from './multipart-ops.js';
import type { OpContext } from './op-context.js';
import type { OperationName, PlanItem } from './plan.js';
import { getObject, headObject, listObjects } from './read-ops.js';
import { copyObject, putObject } from './write-ops.js';

export const OPERATION_RUNNERS: Readonly<Record<OperationName, (item: PlanItem, ctx: OpContext) => Promise<void>>> = {
  PutObject: putObject,
  GetObject: getObject,
  HeadObject: headObject,
  DeleteObject: deleteObject,
  DeleteObjects: deleteObjects,
  CopyObject: copyObject,
  ObjectTagging: objectTagging,
  ListObjectsV2: listObjects,
  ListObjectVersions: listObjects,
  MultipartUpload: multipartUpload,
  PostObject: postObject,
  AdminUpload: adminUpload,
  AdminMultipart: adminMultipart,
};
