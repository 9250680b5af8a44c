// The one error type of Store and the one registry of error codes.
// Services throw AppError; the S3 plane renders it as S3 XML, the admin API as {error, message, statusCode}.
// S3 codes and statuses follow https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html

const REGISTRY = {
  // Authentication and authorization
  AccessDenied: [403, 'Access Denied'],
  AccountProblem: [403, 'There is a problem with your account'],
  AuthorizationHeaderMalformed: [400, 'The authorization header is malformed'],
  AuthorizationQueryParametersError: [400, 'The query authorization parameters are malformed'],
  ExpiredToken: [400, 'The provided token has expired'],
  InvalidAccessKeyId: [403, 'The AWS access key Id you provided does not exist in our records.'],
  InvalidSecurity: [403, 'The provided security credentials are not valid'],
  MissingSecurityHeader: [400, 'Your request was missing a required header'],
  RequestTimeTooSkewed: [403, 'The difference between the request time and the current time is too large.'],
  SignatureDoesNotMatch: [403, 'The request signature we calculated does not match the signature you provided.'],
  XAmzContentSHA256Mismatch: [400, "The provided 'x-amz-content-sha256' header does not match what was computed."],
  // Request shape
  BadDigest: [400, 'The Content-MD5 or checksum you specified did not match what we received.'],
  EntityTooLarge: [400, 'Your proposed upload exceeds the maximum allowed size'],
  EntityTooSmall: [400, 'Your proposed upload is smaller than the minimum allowed object size.'],
  IncompleteBody: [400, 'You did not provide the number of bytes specified by the Content-Length HTTP header'],
  InvalidArgument: [400, 'Invalid Argument'],
  InvalidBucketName: [400, 'The specified bucket is not valid.'],
  InvalidDigest: [400, 'The Content-MD5 or checksum you specified is not valid.'],
  InvalidURI: [400, "Couldn't parse the specified URI."],
  InvalidPartNumber: [416, 'The requested partnumber is not satisfiable'],
  AccessControlListNotSupported: [400, 'The bucket does not allow ACLs'],
  InvalidBucketAclWithObjectOwnership: [
    400,
    "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting",
  ],
  MalformedACLError: [
    400,
    'The XML you provided was not well-formed or did not validate against our published schema.',
  ],
  UnresolvableGrantByEmailAddress: [400, 'The email address you provided does not match any account on record.'],
  InvalidRange: [416, 'The requested range is not satisfiable'],
  InvalidRequest: [400, 'Invalid Request'],
  InvalidLocationConstraint: [400, 'The specified location-constraint is not valid'],
  IllegalLocationConstraintException: [
    400,
    'The unspecified location constraint is incompatible with the region specific endpoint this request was sent to.',
  ],
  KeyTooLongError: [400, 'Your key is too long'],
  MalformedXML: [400, 'The XML you provided was not well-formed or did not validate against our published schema.'],
  MalformedPolicy: [400, 'The policy is not valid JSON or does not follow the policy grammar.'],
  MalformedPOSTRequest: [400, 'The body of your POST request is not well-formed multipart/form-data.'],
  InvalidPolicyDocument: [
    400,
    'The content of the form does not meet the conditions specified in the policy document.',
  ],
  MaxPostPreDataLengthExceededError: [400, 'Your POST request fields preceding the upload file were too large.'],
  MaxMessageLengthExceeded: [400, 'Your request was too big.'],
  MetadataTooLarge: [400, 'Your metadata headers exceed the maximum allowed metadata size.'],
  MissingContentLength: [411, 'You must provide the Content-Length HTTP header.'],
  MissingRequestBodyError: [400, 'Request Body is empty'],
  InvalidPart: [
    400,
    "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
  ],
  InvalidPartOrder: [400, 'The list of parts was not in ascending order. Parts must be ordered by part number.'],
  InvalidStorageClass: [400, 'The storage class you specified is not valid'],
  InvalidObjectState: [403, 'The operation is not valid for the current state of the object.'],
  RestoreAlreadyInProgress: [409, 'Object restore is already in progress'],
  InvalidTag: [400, 'The tag provided was not a valid tag.'],
  UnexpectedContent: [400, 'This request does not support content'],
  // Existence and state
  BucketAlreadyExists: [409, 'The requested bucket name is not available.'],
  BucketAlreadyOwnedByYou: [409, 'Your previous request to create the named bucket succeeded and you already own it.'],
  BucketNotEmpty: [409, 'The bucket you tried to delete is not empty'],
  NoSuchBucket: [404, 'The specified bucket does not exist'],
  NoSuchKey: [404, 'The specified key does not exist.'],
  NoSuchUpload: [
    404,
    'The specified multipart upload does not exist. The upload ID might not be valid, or the multipart upload might have been aborted or completed.',
  ],
  NoSuchVersion: [404, 'The specified version does not exist.'],
  NotFound: [404, 'Not Found'],
  MethodNotAllowed: [405, 'The specified method is not allowed against this resource.'],
  PreconditionFailed: [412, 'At least one of the pre-conditions you specified did not hold'],
  NotModified: [304, 'Not Modified'],
  ConditionalRequestConflict: [409, 'A conflicting operation occurred. Retry the request.'],
  // Bucket configuration
  NoSuchTagSet: [404, 'The TagSet does not exist'],
  NoSuchLifecycleConfiguration: [404, 'The lifecycle configuration does not exist'],
  NoSuchCORSConfiguration: [404, 'The CORS configuration does not exist'],
  NoSuchBucketPolicy: [404, 'The bucket policy does not exist'],
  ServerSideEncryptionConfigurationNotFoundError: [404, 'The server side encryption configuration was not found'],
  ObjectLockConfigurationNotFoundError: [404, 'Object Lock configuration does not exist for this bucket'],
  NoSuchObjectLockConfiguration: [404, 'The specified object does not have a ObjectLock configuration'],
  NoSuchWebsiteConfiguration: [404, 'The specified bucket does not have a website configuration'],
  OwnershipControlsNotFoundError: [404, 'The bucket ownership controls were not found'],
  NoSuchPublicAccessBlockConfiguration: [404, 'The public access block configuration was not found'],
  ReplicationConfigurationNotFoundError: [404, 'The replication configuration was not found'],
  InvalidBucketState: [409, 'The request is not valid with the current state of the bucket.'],
  // S3 answers a refused CORS preflight with this code; its messages begin "CORSResponse:".
  AccessForbidden: [
    403,
    "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
  ],
  BadRequest: [400, 'Bad Request'],
  // Server side
  InternalError: [500, 'We encountered an internal error. Please try again.'],
  NotImplemented: [501, 'A header or operation you provided implies functionality that is not implemented.'],
  ServiceUnavailable: [503, 'Service is unable to handle request.'],
  SlowDown: [503, 'Please reduce your request rate.'],
  RequestTimeout: [
    400,
    'Your socket connection to the server was not read from or written to within the timeout period.',
  ],
  RequestHeaderSectionTooLarge: [400, 'Your request header section exceeds the maximum allowed size.'],
  // Admin API codes, same style
  Unauthorized: [401, 'Authentication is required'],
  Forbidden: [403, 'Forbidden'],
  Conflict: [409, 'Conflict'],
  ValidationError: [400, 'The request is not valid'],
  TooManyRequests: [429, 'Too many requests'],
  // Backup and restore (docs/backup.md)
  InvalidArchive: [400, 'The archive is not a valid Store backup.'],
  InsufficientStorage: [507, 'There is not enough free space on the data volume for this operation.'],
  // Store's own S3 code, as MinIO's XMinioAdminBucketQuotaExceeded (docs/quotas.md)
  QuotaExceeded: [403, 'The write would take the bucket over its quota.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof REGISTRY;

export interface AppErrorOptions {
  /** Overrides the registry's default message. Never put a secret or a user-supplied secret in it. */
  message?: string;
  /** The S3 resource the error is about (bucket or key path), rendered as <Resource>. */
  resource?: string;
  /** Extra headers for the response, for example Retry-After or x-amz-delete-marker. */
  headers?: Record<string, string>;
  /** Extra S3 XML elements or admin JSON fields (for example <Key>, <ArgumentName>). */
  details?: Record<string, string>;
  cause?: unknown;
}

/** An error a client sees: one S3-style code from the registry, with its HTTP status. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly resource: string | undefined;
  readonly headers: Record<string, string>;
  readonly details: Record<string, string>;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    const [status, defaultMessage] = REGISTRY[code];
    super(options.message ?? defaultMessage, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.statusCode = status;
    this.resource = options.resource;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
  }
}

/** NoSuchBucket (404) for the bucket `name`, with the resource and BucketName detail S3 puts in its answer. */
export function noSuchBucket(name: string): AppError {
  return new AppError('NoSuchBucket', { resource: `/${name}`, details: { BucketName: name } });
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** The HTTP status the registry assigns to a code. */
export function statusOf(code: ErrorCode): number {
  return REGISTRY[code][0];
}
