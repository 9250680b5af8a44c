// The parts of a bucket's configuration document, in one registry: each part's validator, the S3 error for reading
// it unset, whether backups carry it, whether the admin API's bucket details show it, and the S3 operations (and
// the IAM actions they need) that read, set and remove it. The bucket service, the bucket repository, the backup
// manifest, the admin API and the S3 plane (routing, authorization, handlers) all read it.

import { grantsToOthers, validateAcl, type Acl } from './acl/acl.js';
import { parseObjectOwnership, type ObjectOwnership } from './acl/ownership.js';
import { validatePublicAccessBlock, type PublicAccessBlock } from './acl/public-access-block.js';
import { validateBucketEncryption, type BucketEncryption } from './bucket-encryption.js';
import { validateCorsConfiguration, type CorsConfiguration } from './cors.js';
import { AppError, type ErrorCode } from './errors.js';
import { validateLifecycleConfiguration, type LifecycleConfiguration } from './lifecycle.js';
import { validateNotificationConfiguration, type NotificationConfiguration } from './notification-config.js';
import { validateObjectLockConfiguration, type ObjectLockConfiguration } from './object-lock.js';
import { parseBucketPolicy } from './policy/policy-document.js';
import { validateBucketQuota, type BucketQuota } from './quota.js';
import { isPublic } from './policy/policy-status.js';
import { validateTagSet, type TagSet } from './tagging.js';

/** Per-bucket configuration, stored as one JSON document; each part is validated by its rule below before it is set. */
export interface BucketConfig {
  tagging?: TagSet;
  encryption?: BucketEncryption;
  lifecycle?: LifecycleConfiguration;
  cors?: CorsConfiguration;
  /** The bucket policy document as the client sent it (validated by core/policy). */
  policy?: string;
  /** Present once object lock is enabled; holds the default retention rule if one is set. */
  objectLock?: ObjectLockConfiguration;
  /**
   * Object ownership controls (absent: ObjectWriter, as AWS after DeleteBucketOwnershipControls;
   * core/acl/ownership.ts).
   */
  ownershipControls?: ObjectOwnership;
  /** The bucket's ACL (absent: the owner's FULL_CONTROL). */
  acl?: Acl;
  /** Block Public Access (absent: no block). */
  publicAccessBlock?: PublicAccessBlock;
  /** Event notifications to targets by ARN (absent: none; core/notification-config.ts). */
  notification?: NotificationConfiguration;
  /** Hard limits on the bucket's bytes and objects (core/quota.ts; set through the admin API only). */
  quota?: BucketQuota;
}

export type ConfigPartName = keyof BucketConfig;

/** The S3 operations of one part by method (verbatim S3 names), and the IAM action each one needs. */
interface S3PartOperations {
  readonly ops: { readonly GET: string; readonly PUT: string; readonly DELETE: string };
  readonly actions: { readonly GET: string; readonly PUT: string; readonly DELETE: string };
}

interface PartRule<T> {
  /** Throws the part's AppError (MalformedXML, InvalidTag, MalformedPolicy, ...) for a value S3 would refuse. */
  readonly validate: (value: T, bucket: string) => void;
  /**
   * Checked against the rest of the bucket's configuration, in the transaction that sets the part: throws the S3
   * error for a value the other parts forbid (a public policy under BlockPublicPolicy, ...).
   */
  readonly checkWith?: (value: T, config: BucketConfig, bucket: string) => void;
  /** What S3 answers when the part is read but was never set. */
  readonly missing: ErrorCode;
  /** Backups carry it (core/backup-manifest.ts validates it like a PUT) and restores put it back. */
  readonly isBackedUp: boolean;
  /** The admin API's bucket details say whether it is set. */
  readonly isShownInDetails: boolean;
  /** Stored as the text the client sent (the policy): an archive must hold a string. */
  readonly isText?: true;
  /** Whether the part is set (default: present in the document). */
  readonly isSet?: (bucket: BucketWithConfig) => boolean;
  /**
   * Read, set (replaced whole) and removed through BucketService.getConfig/putConfig/deleteConfig, by these S3
   * operations on the bucket's `?<name>` subresource (and the admin API's editors). Absent: the part has rules of its
   * own (object lock: turned on for good, never removed; handlers/object-lock.ts, BucketService.setObjectLock).
   */
  readonly s3?: S3PartOperations;
}

/** What a part's rules read of a bucket row. */
export interface BucketWithConfig {
  readonly objectLock: boolean;
  readonly config: BucketConfig;
}

type Rules = { readonly [K in ConfigPartName]-?: PartRule<NonNullable<BucketConfig[K]>> };

/** Each part's rules (S3 API reference: the Get/Put/DeleteBucket<Part> operations). */
export const BUCKET_CONFIG_PARTS = {
  tagging: {
    validate: (tags) => validateTagSet(tags, 'bucket'),
    missing: 'NoSuchTagSet',
    isBackedUp: true,
    isShownInDetails: true,
    s3: {
      ops: { GET: 'GetBucketTagging', PUT: 'PutBucketTagging', DELETE: 'DeleteBucketTagging' },
      actions: { GET: 's3:GetBucketTagging', PUT: 's3:PutBucketTagging', DELETE: 's3:PutBucketTagging' },
    },
  },
  encryption: {
    validate: (encryption) => validateBucketEncryption(encryption),
    missing: 'ServerSideEncryptionConfigurationNotFoundError',
    isBackedUp: true,
    isShownInDetails: true,
    s3: {
      ops: { GET: 'GetBucketEncryption', PUT: 'PutBucketEncryption', DELETE: 'DeleteBucketEncryption' },
      actions: {
        GET: 's3:GetEncryptionConfiguration',
        PUT: 's3:PutEncryptionConfiguration',
        DELETE: 's3:PutEncryptionConfiguration',
      },
    },
  },
  lifecycle: {
    validate: (lifecycle) => validateLifecycleConfiguration(lifecycle),
    missing: 'NoSuchLifecycleConfiguration',
    isBackedUp: true,
    isShownInDetails: true,
    s3: {
      ops: {
        GET: 'GetBucketLifecycleConfiguration',
        PUT: 'PutBucketLifecycleConfiguration',
        DELETE: 'DeleteBucketLifecycle',
      },
      actions: {
        GET: 's3:GetLifecycleConfiguration',
        PUT: 's3:PutLifecycleConfiguration',
        DELETE: 's3:PutLifecycleConfiguration',
      },
    },
  },
  cors: {
    validate: (cors) => validateCorsConfiguration(cors),
    missing: 'NoSuchCORSConfiguration',
    isBackedUp: true,
    isShownInDetails: true,
    s3: {
      ops: { GET: 'GetBucketCors', PUT: 'PutBucketCors', DELETE: 'DeleteBucketCors' },
      actions: { GET: 's3:GetBucketCORS', PUT: 's3:PutBucketCORS', DELETE: 's3:PutBucketCORS' },
    },
  },
  policy: {
    validate: (json, bucket) => void parseBucketPolicy(json, bucket),
    missing: 'NoSuchBucketPolicy',
    isBackedUp: true,
    isShownInDetails: true,
    isText: true,
    // BlockPublicAcls' sibling: "PUT Bucket policy calls fail if the specified bucket policy allows public access".
    checkWith: (json, config, bucket) => {
      if (config.publicAccessBlock?.blockPublicPolicy === true && isPublic(parseBucketPolicy(json, bucket))) {
        throw new AppError('AccessDenied', {
          message: 'The bucket policy is public and BlockPublicPolicy is on for this bucket.',
        });
      }
    },
    s3: {
      ops: { GET: 'GetBucketPolicy', PUT: 'PutBucketPolicy', DELETE: 'DeleteBucketPolicy' },
      actions: { GET: 's3:GetBucketPolicy', PUT: 's3:PutBucketPolicy', DELETE: 's3:DeleteBucketPolicy' },
    },
  },
  objectLock: {
    validate: (config) => validateObjectLockConfiguration(config),
    missing: 'ObjectLockConfigurationNotFoundError',
    isBackedUp: true,
    isShownInDetails: true,
    // The bucket's flag is what turns object lock on; the document (present whenever the flag is) holds the default.
    isSet: (bucket) => bucket.objectLock,
  },
  ownershipControls: {
    validate: (value) => void parseObjectOwnership(String(value), 'ObjectOwnership'),
    missing: 'OwnershipControlsNotFoundError',
    isBackedUp: true,
    isShownInDetails: false,
    // "If your bucket ACL grants access outside of your account, the request fails with
    // InvalidBucketAclWithObjectOwnership"
    // (User Guide, Object Ownership troubleshooting): reset the bucket ACL first. Object ACLs are simply no longer
    // used.
    checkWith: (value, config) => {
      if (value === 'BucketOwnerEnforced' && config.acl !== undefined && grantsToOthers(config.acl)) {
        throw new AppError('InvalidBucketAclWithObjectOwnership');
      }
    },
    s3: {
      ops: {
        GET: 'GetBucketOwnershipControls',
        PUT: 'PutBucketOwnershipControls',
        DELETE: 'DeleteBucketOwnershipControls',
      },
      actions: {
        GET: 's3:GetBucketOwnershipControls',
        PUT: 's3:PutBucketOwnershipControls',
        DELETE: 's3:PutBucketOwnershipControls',
      },
    },
  },
  acl: {
    // Set by CreateBucket and PutBucketAcl (BucketService.setAcl), never through a generic part operation.
    validate: (acl) => void validateAcl(acl),
    missing: 'AccessDenied',
    isBackedUp: true,
    isShownInDetails: false,
  },
  publicAccessBlock: {
    validate: (value) => validatePublicAccessBlock(value),
    missing: 'NoSuchPublicAccessBlockConfiguration',
    isBackedUp: true,
    isShownInDetails: true,
    s3: {
      ops: { GET: 'GetPublicAccessBlock', PUT: 'PutPublicAccessBlock', DELETE: 'DeletePublicAccessBlock' },
      actions: {
        GET: 's3:GetBucketPublicAccessBlock',
        PUT: 's3:PutBucketPublicAccessBlock',
        DELETE: 's3:PutBucketPublicAccessBlock',
      },
    },
  },
  notification: {
    // Set by PutBucketNotificationConfiguration (an empty document removes it; there is no Delete operation), which
    // also checks that every ARN names a target; a backup carries it and a restore re-links it by ARN
    // (docs/notifications.md "Backups").
    validate: (config) => validateNotificationConfiguration(config),
    missing: 'InvalidRequest',
    isBackedUp: true,
    isShownInDetails: true,
  },
  quota: {
    // Set and cleared through the admin API (BucketService.setQuota); S3 has no quota operations.
    validate: (quota) => validateBucketQuota(quota),
    missing: 'NoSuchBucket',
    isBackedUp: true,
    isShownInDetails: false,
  },
} as const satisfies Rules;

type Parts = typeof BUCKET_CONFIG_PARTS;
/** The same rules, typed by part: for code generic over the part's name. */
const RULES: Rules = BUCKET_CONFIG_PARTS;
const NAMES = Object.keys(BUCKET_CONFIG_PARTS) as ConfigPartName[];

/** The parts S3 operations read, set and remove as a whole (every part with `s3` operations). */
export type ConfigPart = {
  [K in ConfigPartName]: Parts[K] extends { s3: S3PartOperations } ? K : never;
}[ConfigPartName];
export const CONFIG_PARTS = NAMES.filter((name): name is ConfigPart => 's3' in BUCKET_CONFIG_PARTS[name]);

/** A part's operations, by method. */
export type ConfigPartOps<K extends ConfigPart> = Parts[K]['s3']['ops'];
/** Every S3 operation of a part in CONFIG_PARTS. */
export type ConfigPartOperation = { [K in ConfigPart]: ConfigPartOps<K>[keyof ConfigPartOps<K>] }[ConfigPart];

/** Subresource (the part's name) -> method -> operation, for the S3 router's table. */
export const CONFIG_PART_SUBRESOURCES = Object.fromEntries(
  CONFIG_PARTS.map((name) => [name, BUCKET_CONFIG_PARTS[name].s3.ops]),
) as { readonly [K in ConfigPart]: ConfigPartOps<K> };

/** Operation -> the IAM action it needs (on the bucket). */
export const CONFIG_PART_ACTIONS: ReadonlyMap<string, string> = new Map(
  CONFIG_PARTS.flatMap((name) => {
    const { ops, actions } = BUCKET_CONFIG_PARTS[name].s3;
    return (['GET', 'PUT', 'DELETE'] as const).map((method): [string, string] => [ops[method], actions[method]]);
  }),
);

/** Validates a part's value for bucket `bucket` (throws the part's AppError). */
export function validateConfigPart<K extends ConfigPartName>(
  name: K,
  value: NonNullable<BucketConfig[K]>,
  bucket: string,
): void {
  // TypeScript cannot correlate RULES[name] with `value` for a generic K (a union of rules): the mapped type says it.
  (RULES[name] as PartRule<NonNullable<BucketConfig[K]>>).validate(value, bucket);
}

/** Checks a part's value against the rest of the configuration (the part's `checkWith`; throws its AppError). */
export function checkConfigPartWith<K extends ConfigPartName>(
  name: K,
  value: NonNullable<BucketConfig[K]>,
  within: { config: BucketConfig; bucket: string },
): void {
  (RULES[name] as PartRule<NonNullable<BucketConfig[K]>>).checkWith?.(value, within.config, within.bucket);
}

/** True for a part stored as the text the client sent (the policy). */
export function isTextPart(name: ConfigPartName): boolean {
  return RULES[name].isText === true;
}

/**
 * The S3 error for reading part `name` of bucket `bucket` while it is unset (NoSuchTagSet, NoSuchBucketPolicy, ...).
 */
export function missingConfigPart(name: ConfigPartName, bucket: string): AppError {
  return new AppError(BUCKET_CONFIG_PARTS[name].missing, { resource: `/${bucket}`, details: { BucketName: bucket } });
}

/** The parts a backup carries, in registry order: what an archive's configuration may hold. */
export const BACKED_UP_PARTS: readonly ConfigPartName[] = NAMES.filter((name) => BUCKET_CONFIG_PARTS[name].isBackedUp);

/** A bucket's configuration as a backup carries it: the document without the parts whose rule says otherwise. */
export function backedUpConfig(config: BucketConfig): BucketConfig {
  const skipped = NAMES.filter((name) => !BUCKET_CONFIG_PARTS[name].isBackedUp && config[name] !== undefined);
  if (skipped.length === 0) return config;
  const out = { ...config };
  for (const name of skipped) delete out[name];
  return out;
}

/** A part the admin API's bucket details report as set or not. */
export type DetailedPart = {
  [K in ConfigPartName]: Parts[K]['isShownInDetails'] extends true ? K : never;
}[ConfigPartName];
/** The parts the admin API's bucket details report, in registry order. */
export const DETAILED_PARTS = NAMES.filter((name): name is DetailedPart => BUCKET_CONFIG_PARTS[name].isShownInDetails);

/** Which parts are set, for the admin API's bucket details. */
export function configPartsSet(bucket: BucketWithConfig): Record<DetailedPart, boolean> {
  return Object.fromEntries(
    DETAILED_PARTS.map((name) => {
      const isSet = RULES[name].isSet;
      return [name, isSet ? isSet(bucket) : bucket.config[name] !== undefined];
    }),
  ) as Record<DetailedPart, boolean>;
}
