// The S3 XML surface in one import: request body parsers and response builders.
// XML element names live only in this folder.

export { escapeXml, s3UrlEncode, isoTimestamp, XML_PROLOG, S3_XMLNS, type Owner, type ChecksumValues } from './escape.js';
export { buildErrorXml, buildAppErrorXml, type ErrorDocument } from './error.js';
export {
  parseCreateBucketConfiguration,
  parseDeleteObjects,
  parseCompleteMultipartUpload,
  MAX_DELETE_OBJECTS,
  type CreateBucketConfiguration,
  type DeleteObjectsRequest,
  type CompletedPart,
  type CompleteMultipartUploadRequest,
} from './parse.js';
export { buildListAllMyBucketsResult, buildLocationConstraint, type BucketSummary, type ListAllMyBucketsInput } from './buckets.js';
export {
  buildListObjectsV1Result,
  buildListObjectsV2Result,
  type ObjectSummary,
  type EncodingType,
  type ListObjectsV1Input,
  type ListObjectsV2Input,
} from './list-objects.js';
export {
  buildInitiateMultipartUploadResult,
  buildCompleteMultipartUploadResult,
  buildListPartsResult,
  buildListMultipartUploadsResult,
  type CompleteMultipartUploadResultInput,
  type PartSummary,
  type ListPartsInput,
  type UploadSummary,
  type ListMultipartUploadsInput,
} from './multipart.js';
export {
  buildCopyObjectResult,
  buildCopyPartResult,
  buildDeleteResult,
  type CopyResultInput,
  type DeletedEntry,
  type DeleteErrorEntry,
  type DeleteResultInput,
} from './objects.js';
