// TypeBox schemas of the admin bucket routes: bucket records and the JSON form of each bucket configuration. Each
// configuration is the core/ model as JSON, which mirrors S3's XML document element by element in camelCase
// (<CORSRule><AllowedOrigin> is rules[].allowedOrigins[]), so one validator in core/ serves both planes.

import { Type, type TBoolean, type TObject, type TProperties, type TUnsafe } from '@sinclair/typebox';
import { DETAILED_PARTS, type DetailedPart } from '../../../core/bucket-config-parts.js';
import { MAX_QUOTA_LIMIT } from '../../../core/quota.js';
import { noContent } from './schemas.js';

/**
 * An object schema that refuses unknown properties, so a misspelt field (`objectlock`) is a ValidationError naming
 * it rather than a setting quietly ignored. (The admin Ajv runs without removeAdditional (http-server.ts), so
 * `additionalProperties: false` refuses them too; a schema here also says so in the OpenAPI document.)
 */
export function Strict<T extends TProperties>(properties: T, options: { description?: string } = {}): TObject<T> {
  return Type.Object(properties, { ...options, additionalProperties: Type.Never() });
}

/** A string enumeration as `{type: string, enum}` (valid in OpenAPI 3.0 and 3.1, unlike `const`). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** An empty answer (204). */
export const NoContent = noContent('No content');

export const BucketNameParams = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Bucket name' }),
});

const Iso = (description: string) => Type.String({ format: 'date-time', description });

export const BucketUsageSchema = {
  objectCount: Type.Integer({ description: 'Current versions that are not delete markers' }),
  bytes: Type.Integer({ description: 'Bytes of those current versions' }),
  versionCount: Type.Integer({ description: 'Every stored version, noncurrent ones and delete markers included' }),
  versionBytes: Type.Integer({ description: 'Bytes of every stored version: what the bucket occupies' }),
};

const VersioningState = StringEnum(['Unversioned', 'Enabled', 'Suspended'] as const);

export const BucketSummary = Type.Object({
  name: Type.String(),
  createdAt: Iso('Creation time'),
  region: Type.String(),
  versioning: VersioningState,
  objectLock: Type.Boolean(),
  ...BucketUsageSchema,
});

export const BucketList = Type.Object({ buckets: Type.Array(BucketSummary) });

export const BucketDetails = Type.Object({
  ...BucketSummary.properties,
  // One flag per part the registry shows in details (core/bucket-config-parts.ts), in its order.
  configs: Type.Object(
    Object.fromEntries(DETAILED_PARTS.map((name) => [name, Type.Boolean()])) as Record<DetailedPart, TBoolean>,
    { description: 'Which configurations are set' },
  ),
  objectOwnership: StringEnum(['BucketOwnerEnforced', 'BucketOwnerPreferred', 'ObjectWriter'] as const, {
    description:
      'Object ownership: BucketOwnerEnforced disables ACLs; the others enable them (a bucket without ownership controls is ObjectWriter)',
  }),
  public: Type.Object(
    {
      isPublic: Type.Boolean({
        description: 'Anyone may read or write something in this bucket without credentials (or with any key)',
      }),
      reasons: Type.Array(StringEnum(['policy', 'acl'] as const), {
        description:
          'Why: a public bucket policy (unless RestrictPublicBuckets), a public bucket ACL (where ACLs are enabled, unless IgnorePublicAcls). Object ACLs are not counted. The same rule as GetBucketPolicyStatus',
      }),
    },
    { description: 'Whether the bucket is public, and why' },
  ),
});

export const CreateBucketBody = Strict({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'S3 bucket name rules apply (InvalidBucketName)' }),
  region: Type.Optional(Type.String({ description: "Must be this server's region (InvalidLocationConstraint)" })),
  objectLock: Type.Optional(
    Type.Boolean({ description: 'Create with object lock (versioning is then Enabled for good)' }),
  ),
  versioning: Type.Optional(Type.Boolean({ description: 'Create with versioning Enabled' })),
  objectOwnership: Type.Optional(
    StringEnum(['BucketOwnerEnforced', 'BucketOwnerPreferred', 'ObjectWriter'] as const, {
      description:
        'Object ownership (default STORE_DEFAULT_OBJECT_OWNERSHIP): BucketOwnerPreferred or ObjectWriter enable ACLs',
    }),
  ),
});

export const Tag = Strict({ key: Type.String(), value: Type.String() });
export const TagSetBody = Strict({
  tags: Type.Array(Tag, { description: 'At most 50 for a bucket, 10 for an object (InvalidTag)' }),
});

export const VersioningBody = Strict({ status: StringEnum(['Enabled', 'Suspended'] as const) });
export const VersioningResponse = Type.Object({ status: VersioningState });

export const EncryptionBody = Strict({
  sseAlgorithm: Type.String({ description: 'AES256; aws:kms and aws:kms:dsse are NotImplemented' }),
  bucketKeyEnabled: Type.Optional(Type.Boolean()),
});

const RetentionMode = StringEnum(['GOVERNANCE', 'COMPLIANCE'] as const);

export const ObjectLockBody = Strict({
  enabled: Type.Optional(Type.Boolean({ description: 'Always true: object lock cannot be turned off' })),
  defaultRetention: Type.Optional(
    Strict({
      mode: RetentionMode,
      days: Type.Optional(Type.Integer({ description: 'Exactly one of days and years' })),
      years: Type.Optional(Type.Integer()),
    }),
  ),
});

export const CorsBody = Strict({
  rules: Type.Array(
    Strict({
      id: Type.Optional(Type.String()),
      allowedOrigins: Type.Array(Type.String()),
      allowedMethods: Type.Array(Type.String({ description: 'GET, PUT, POST, DELETE or HEAD' })),
      allowedHeaders: Type.Optional(Type.Array(Type.String(), { default: [] })),
      exposeHeaders: Type.Optional(Type.Array(Type.String(), { default: [] })),
      maxAgeSeconds: Type.Optional(Type.Integer()),
    }),
  ),
});

const LifecycleDate = Type.String({ description: 'ISO 8601, midnight UTC' });
const StorageClass = Type.String({ description: 'STANDARD_IA, GLACIER or DEEP_ARCHIVE' });

export const LifecycleBody = Strict({
  rules: Type.Array(
    Strict({
      id: Type.Optional(Type.String({ description: 'Assigned when left out' })),
      status: StringEnum(['Enabled', 'Disabled'] as const),
      prefix: Type.Optional(
        Type.String({ description: 'Deprecated rule-level prefix; exactly one of prefix and filter' }),
      ),
      filter: Type.Optional(
        Strict({
          prefix: Type.Optional(Type.String()),
          tags: Type.Optional(Type.Array(Tag)),
          objectSizeGreaterThan: Type.Optional(Type.Integer()),
          objectSizeLessThan: Type.Optional(Type.Integer()),
        }),
      ),
      expiration: Type.Optional(
        Strict({
          days: Type.Optional(Type.Integer()),
          date: Type.Optional(LifecycleDate),
          expiredObjectDeleteMarker: Type.Optional(Type.Boolean()),
        }),
      ),
      transitions: Type.Optional(
        Type.Array(
          Strict({
            days: Type.Optional(Type.Integer()),
            date: Type.Optional(LifecycleDate),
            storageClass: StorageClass,
          }),
        ),
      ),
      noncurrentVersionExpiration: Type.Optional(
        Strict({
          noncurrentDays: Type.Integer(),
          newerNoncurrentVersions: Type.Optional(Type.Integer()),
        }),
      ),
      noncurrentVersionTransitions: Type.Optional(
        Type.Array(
          Strict({
            noncurrentDays: Type.Integer(),
            newerNoncurrentVersions: Type.Optional(Type.Integer()),
            storageClass: StorageClass,
          }),
        ),
      ),
      abortIncompleteMultipartUpload: Type.Optional(Strict({ daysAfterInitiation: Type.Integer() })),
    }),
  ),
});

export const PolicyDocument = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'An IAM-style bucket policy document ({Version, Statement}); checked by core/policy (MalformedPolicy)',
  },
);

// The bucket quota (docs/quotas.md).
const Limit = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_QUOTA_LIMIT, description }));

export const QuotaBody = Strict(
  {
    maxBytes: Limit('Most bytes the bucket may hold: every version and the parts of open multipart uploads'),
    maxObjects: Limit('Most objects (current versions that are not delete markers) the bucket may hold'),
  },
  { description: 'Either limit may be left out (unlimited); at least one is required' },
);

export const QuotaResponse = Type.Object({
  quota: Type.Optional(QuotaBody),
  usage: Type.Object({
    bytes: Type.Integer({ description: 'Bytes the byte quota counts now' }),
    objects: Type.Integer({ description: 'Objects the object quota counts now' }),
  }),
});
