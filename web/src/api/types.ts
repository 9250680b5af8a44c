// The admin API's shapes as the console uses them (the OpenAPI document at /api/admin/openapi.json is the
// reference). The shapes of routes other sessions are building (replication, backup, integrity, analytics) are
// typed loosely: every field optional, so a page degrades rather than breaks when a field is absent.

export type Role = 'full-admin' | 'read-only';

export interface Me { id: string; username: string; mustChangePassword: boolean; role: Role }
export interface TokenResponse { accessToken: string; expiresIn: number }

export interface AdminUser { id: string; username: string; role: Role; mustChangePassword: boolean; createdAt: string; updatedAt: string }
export interface UserWithPassword { user: AdminUser; temporaryPassword?: string }

export type Versioning = 'Unversioned' | 'Enabled' | 'Suspended';
export interface BucketSummary {
  name: string; createdAt: string; region: string; versioning: Versioning; objectLock: boolean;
  objectCount: number; bytes: number; versionCount: number; versionBytes: number;
}
export interface BucketDetails extends BucketSummary {
  configs: {
    tagging: boolean; encryption: boolean; lifecycle: boolean; cors: boolean; policy: boolean; objectLock: boolean; publicAccessBlock: boolean;
  };
  objectOwnership: 'BucketOwnerEnforced' | 'BucketOwnerPreferred' | 'ObjectWriter';
  /** Whether anyone may access the bucket without credentials (or with any key), and why. */
  public: { isPublic: boolean; reasons: ('policy' | 'acl')[] };
}

export interface Tag { key: string; value: string }
export interface CorsRule {
  id?: string; allowedOrigins: string[]; allowedMethods: string[]; allowedHeaders?: string[]; exposeHeaders?: string[]; maxAgeSeconds?: number;
}
export interface ObjectLockConfig { enabled?: boolean; defaultRetention?: { mode: 'GOVERNANCE' | 'COMPLIANCE'; days?: number; years?: number } }
export interface EncryptionConfig { sseAlgorithm: string; bucketKeyEnabled?: boolean }

export interface ListedObject { key: string; size: number; etag: string; lastModified: string; storageClass: string }
export interface BrowsePage { objects: ListedObject[]; prefixes: string[]; nextCursor?: string }
export interface ObjectVersion {
  key: string; versionId: string; isLatest: boolean; isDeleteMarker: boolean; size: number; etag: string; lastModified: string; storageClass: string;
}
export interface VersionsPage { versions: ObjectVersion[]; prefixes: string[]; nextCursor?: string }
export interface ObjectInfo {
  key: string; versionId: string; isLatest: boolean; size: number; etag: string; lastModified: string; storageClass: string;
  contentType?: string; contentEncoding?: string; contentDisposition?: string; contentLanguage?: string; cacheControl?: string; expires?: string;
  userMetadata: Record<string, string>; partCount?: number; checksum?: { algorithm: string; value: string; type?: string };
  tags: Tag[]; retention?: { mode: string; retainUntilDate: string }; legalHold: boolean;
}
export interface BatchDeleteResult {
  deleted: number; failed: number;
  results: Array<{ key: string; versionId?: string; ok: boolean; deleteMarker?: boolean; error?: string; message?: string }>;
}
export interface Presigned { url: string; method: string; expiresAt: string }
export interface Upload { key: string; uploadId: string; initiated: string }
export interface SearchItem { bucket: string; key: string; size: number; etag: string; lastModified: string }
export interface SearchPage { items: SearchItem[]; nextCursor: string | null }

export type KeyAction = 'GetObject' | 'PutObject' | 'DeleteObject' | 'ListBucket';
export const KEY_ACTIONS: readonly KeyAction[] = ['GetObject', 'PutObject', 'DeleteObject', 'ListBucket'];
export interface KeyScope { bucket: string; prefix?: string; actions?: KeyAction[] }
export interface KeyPermissions { scope?: KeyScope; policy?: Record<string, unknown> | string }
export interface AccessKey {
  accessKeyId: string; name: string; description: string; enabled: boolean; permissions: KeyPermissions | null;
  createdAt: string; updatedAt: string; createdBy: string; lastUsedAt: string | null;
}
export interface AccessKeyWithSecret extends AccessKey { secretAccessKey: string }
export interface EffectivePermissions { accessKeyId: string; form: 'none' | 'scope' | 'policy'; scope?: KeyScope; policy: Record<string, unknown> | null }
export interface Simulation {
  decision: 'allow' | 'deny'; reason: 'explicit-deny' | 'allowed' | 'implicit-deny'; statement?: { source: 'key' | 'bucket'; sid?: string; index: number };
}

export interface AuditItem { id: string; time: string; event: string; subject: string; bucket: string | null; details: Record<string, unknown> }
export interface AuditPage { items: AuditItem[]; nextCursor: string | null }

export interface VersionInfo { version: string; build: string; node: string }
export interface WebhookStatus {
  enabled: boolean; counts: { pending: number; delivered: number; failed: number };
  oldestPendingAgeSeconds: number | null; lastError: { message: string; at: string } | null;
}

// ---- routes being built in parallel (issues 7, 8, 10): loose shapes ----

export interface ReplicationStatus {
  enabled?: boolean; targetBucket?: string;
  outbox?: { pending?: number; inflight?: number; failed?: number };
  oldestPendingAgeSeconds?: number | null;
  lastDrain?: { at?: string; count?: number; errorClass?: string | null } | null;
  tiering?: { enabled?: boolean; stubs?: number; restored?: number; rehydrating?: number } | null;
}
export interface ReplicationFailure { bucket: string; key: string; attempts?: number; lastError?: string | null; failedAt?: string }
export interface ReplicationFailedPage { items: ReplicationFailure[]; nextCursor?: string | null }
export interface ReconcileJob {
  id: string; state?: string; bucket?: string | null; scanned?: number; enqueued?: number; errors?: number; error?: string | null;
  startedAt?: string; finishedAt?: string | null;
}
export interface BackupSchedule {
  enabled?: boolean; running?: boolean;
  policy?: { scope?: string | null; cron?: string | null; intervalMinutes?: number | null; keepLast?: number; maxAgeDays?: number; pushToReplication?: boolean };
  snapshots?: { count?: number; bytes?: number; newestAt?: string | null; oldestAt?: string | null };
  runs?: { started?: number; succeeded?: number; failed?: number };
  lastRun?: { startedAt?: string; finishedAt?: string; result?: string; snapshots?: number; bytes?: number; pruned?: number; error?: string | null } | null;
  nextRunAt?: string | null;
}
export interface InstanceRestored { bucketsRestored?: number; objectsRestored?: number }
export interface IntegrityPass {
  startedAt?: string; finishedAt?: string; trigger?: string; objectsChecked?: number; bytesChecked?: number; corruptFound?: number;
  repaired?: number; objectsTotal?: number; bytesTotal?: number; percent?: number;
}
export interface IntegrityStatus {
  enabled?: boolean; counts?: { ok?: number; corrupt?: number; unchecked?: number };
  currentPass?: IntegrityPass | null; lastFullPass?: IntegrityPass | null; nextPassAt?: string | null; repairAvailable?: boolean;
}
export interface CorruptItem { bucket: string; key: string; versionId?: string; size?: number; detectedAt?: string; checkedAt?: string; reason?: string; detail?: string | null }
export interface CorruptPage { items: CorruptItem[]; nextCursor?: string | null }
export interface StorageSeries { step?: number; points?: Array<{ t: string; bytes?: number | null; objects?: number | null; versions?: number | null }> }
export interface RequestSeries {
  step?: number;
  points?: Array<{ t: string; requestsPerSecond?: number | null; errorsPerSecond?: number | null; requests?: number | null; clientErrors?: number | null; serverErrors?: number | null }>;
  totals?: { requests?: number; clientErrors?: number; serverErrors?: number };
}
export interface BucketBreakdown {
  totals?: { buckets?: number; bytes?: number; objects?: number; versions?: number };
  buckets?: Array<{ bucket: string; bytes?: number; objects?: number; share?: number }>;
}
