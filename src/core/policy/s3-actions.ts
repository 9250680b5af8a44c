// The S3 policy actions (for validating Action/NotAction) with the resource each applies to, and the
// action(s) each S3 operation is authorized by. Sources: AWS Service Authorization Reference, "Actions,
// resources, and condition keys for Amazon S3", and the S3 User Guide "Required permissions for Amazon S3 API
// operations".

/** Which resource an action is checked against: the bucket ARN, the object ARN, or none ("*"). */
export type ActionLevel = 'bucket' | 'object' | 'service';

const OBJECT_ACTIONS = `AbortMultipartUpload BypassGovernanceRetention DeleteObject DeleteObjectTagging DeleteObjectVersion
  DeleteObjectVersionTagging GetObject GetObjectAcl GetObjectAttributes GetObjectLegalHold GetObjectRetention GetObjectTagging
  GetObjectTorrent GetObjectVersion GetObjectVersionAcl GetObjectVersionAttributes GetObjectVersionForReplication
  GetObjectVersionTagging GetObjectVersionTorrent InitiateReplication ListMultipartUploadParts ObjectOwnerOverrideToBucketOwner
  PutObject PutObjectAcl PutObjectLegalHold PutObjectRetention PutObjectTagging PutObjectVersionAcl PutObjectVersionTagging
  ReplicateDelete ReplicateObject ReplicateTags RestoreObject`;

const BUCKET_ACTIONS = `CreateBucket CreateBucketMetadataTableConfiguration DeleteBucket DeleteBucketMetadataTableConfiguration
  DeleteBucketPolicy DeleteBucketWebsite GetAccelerateConfiguration GetAnalyticsConfiguration GetBucketAbac GetBucketAcl
  GetBucketCORS GetBucketLocation GetBucketLogging GetBucketMetadataTableConfiguration GetBucketNotification
  GetBucketObjectLockConfiguration GetBucketOwnershipControls GetBucketPolicy GetBucketPolicyStatus GetBucketPublicAccessBlock
  GetBucketRequestPayment GetBucketTagging GetBucketVersioning GetBucketWebsite GetEncryptionConfiguration
  GetIntelligentTieringConfiguration GetInventoryConfiguration GetLifecycleConfiguration GetMetricsConfiguration
  GetReplicationConfiguration ListBucket ListBucketMultipartUploads ListBucketVersions PauseReplication
  PutAccelerateConfiguration PutAnalyticsConfiguration PutBucketAbac PutBucketAcl PutBucketCORS PutBucketLogging
  PutBucketNotification PutBucketObjectLockConfiguration PutBucketOwnershipControls PutBucketPolicy PutBucketPublicAccessBlock
  PutBucketRequestPayment PutBucketTagging PutBucketVersioning PutBucketWebsite PutEncryptionConfiguration
  PutIntelligentTieringConfiguration PutInventoryConfiguration PutLifecycleConfiguration PutMetricsConfiguration
  PutReplicationConfiguration UpdateBucketMetadataInventoryTableConfiguration UpdateBucketMetadataJournalTableConfiguration`;

// Account-level actions and those on other resource types (access points, jobs, Storage Lens, access grants,
// Multi-Region Access Points). Valid action names, but they never apply to a bucket or an object.
const OTHER_ACTIONS = `AssociateAccessGrantsIdentityCenter CreateAccessGrant CreateAccessGrantsInstance CreateAccessGrantsLocation
  CreateAccessPoint CreateAccessPointForObjectLambda CreateJob CreateMultiRegionAccessPoint CreateStorageLensGroup
  DeleteAccessGrant DeleteAccessGrantsInstance DeleteAccessGrantsInstanceResourcePolicy DeleteAccessGrantsLocation
  DeleteAccessPoint DeleteAccessPointForObjectLambda DeleteAccessPointPolicy DeleteAccessPointPolicyForObjectLambda
  DeleteJobTagging DeleteMultiRegionAccessPoint DeleteStorageLensConfiguration DeleteStorageLensConfigurationTagging
  DeleteStorageLensGroup DescribeJob DescribeMultiRegionAccessPointOperation DissociateAccessGrantsIdentityCenter
  GetAccessGrant GetAccessGrantsInstance GetAccessGrantsInstanceForPrefix GetAccessGrantsInstanceResourcePolicy
  GetAccessGrantsLocation GetAccessPoint GetAccessPointConfigurationForObjectLambda GetAccessPointForObjectLambda
  GetAccessPointPolicy GetAccessPointPolicyForObjectLambda GetAccessPointPolicyStatus GetAccessPointPolicyStatusForObjectLambda
  GetAccountPublicAccessBlock GetDataAccess GetJobTagging GetMultiRegionAccessPoint GetMultiRegionAccessPointPolicy
  GetMultiRegionAccessPointPolicyStatus GetMultiRegionAccessPointRoutes GetStorageLensConfiguration
  GetStorageLensConfigurationTagging GetStorageLensDashboard GetStorageLensGroup ListAccessGrants ListAccessGrantsInstances
  ListAccessGrantsLocations ListAccessPoints ListAccessPointsForObjectLambda ListAllMyBuckets ListCallerAccessGrants ListJobs
  ListMultiRegionAccessPoints ListStorageLensConfigurations ListStorageLensGroups ListTagsForResource
  PutAccessGrantsInstanceResourcePolicy PutAccessPointConfigurationForObjectLambda PutAccessPointPolicy
  PutAccessPointPolicyForObjectLambda PutAccessPointPublicAccessBlock PutAccountPublicAccessBlock PutJobTagging
  PutMultiRegionAccessPointPolicy PutStorageLensConfiguration PutStorageLensConfigurationTagging SubmitMultiRegionAccessPointRoutes
  TagResource UntagResource UpdateAccessGrantsLocation UpdateJobPriority UpdateJobStatus UpdateStorageLensGroup`;

function levelsOf(list: string, level: ActionLevel): [string, ActionLevel][] {
  return list
    .split(/\s+/)
    .filter(Boolean)
    .map((name) => [`s3:${name}`, level]);
}

/** Every known S3 action, canonical spelling, with the resource level it applies to. */
export const S3_ACTIONS: ReadonlyMap<string, ActionLevel> = new Map([
  ...levelsOf(OBJECT_ACTIONS, 'object'),
  ...levelsOf(BUCKET_ACTIONS, 'bucket'),
  ...levelsOf(OTHER_ACTIONS, 'service'),
]);

const BY_LOWER: ReadonlyMap<string, string> = new Map([...S3_ACTIONS.keys()].map((a) => [a.toLowerCase(), a]));

/** The canonical spelling of a known action (action names are case-insensitive), or undefined. */
export function canonicalAction(action: string): string | undefined {
  return BY_LOWER.get(action.toLowerCase());
}

/** The level of an action; unknown actions are judged by whether a key is given. */
export function actionLevel(action: string, hasKey: boolean): ActionLevel {
  const canonical = canonicalAction(action);
  const level = canonical === undefined ? undefined : S3_ACTIONS.get(canonical);
  return level ?? (hasKey ? 'object' : 'bucket');
}

/**
 * The resource ARN a request for `action` is checked against: `arn:aws:s3:::bucket` for bucket-level actions,
 * `arn:aws:s3:::bucket/key` for object-level ones, `*` for account-level ones (ListAllMyBuckets).
 */
export function actionResourceArn(action: string, bucket: string, key?: string): string {
  const level = actionLevel(action, key !== undefined);
  if (level === 'service') return '*';
  if (level === 'object') return `arn:aws:s3:::${bucket}/${key ?? ''}`;
  return `arn:aws:s3:::${bucket}`;
}
