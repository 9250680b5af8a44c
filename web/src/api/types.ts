// The admin API's shapes as the console uses them. The stable ones are the server's own TypeBox schemas
// (http/admin/routes/*-schemas.ts), imported as types only: erased from the bundle, so no server code reaches it,
// and a schema change that breaks the console fails `tsc -p web/tsconfig.json` (run by `npm run typecheck`). The
// shapes of routes other sessions are building (replication, backup, integrity, analytics) are typed loosely: every
// field optional, so a page degrades rather than breaks when a field is absent.

import type { Static } from '@sinclair/typebox';
import type * as Buckets from '../../../src/http/admin/routes/bucket-schemas.js';
import type * as Identity from '../../../src/http/admin/routes/identity-schemas.js';
import type * as Keys from '../../../src/http/admin/routes/key-schemas.js';
import type * as Notify from '../../../src/http/admin/routes/notification-schemas.js';
import type * as Objects from '../../../src/http/admin/routes/object-schemas.js';

export type Role = Static<typeof Identity.Role>;
export type Me = Static<typeof Identity.Identity>;
export type TokenResponse = Static<typeof Identity.TokenResponse>;
export type AdminUser = Static<typeof Identity.AdminUser>;
export type UserWithPassword = Static<typeof Identity.UserWithPassword>;

export type BucketSummary = Static<typeof Buckets.BucketSummary>;
export type BucketDetails = Static<typeof Buckets.BucketDetails>;
export type Versioning = BucketSummary['versioning'];
export type Tag = Static<typeof Buckets.Tag>;
export type CorsRule = Static<typeof Buckets.CorsBody>['rules'][number];
export type ObjectLockConfig = Static<typeof Buckets.ObjectLockBody>;
export type EncryptionConfig = Static<typeof Buckets.EncryptionBody>;

export type ListedObject = Static<typeof Objects.ListedObjectSchema>;
export type BrowsePage = Static<typeof Objects.BrowsePage>;
export type VersionsPage = Static<typeof Objects.VersionsPageSchema>;
export type ObjectVersion = VersionsPage['versions'][number];
export type ObjectInfo = Static<typeof Objects.ObjectInfo>;
export type BatchDeleteResult = Static<typeof Objects.BatchDeleteResponse>;
export type Presigned = Static<typeof Objects.PresignResponse>;
export type ShareLink = Static<typeof Objects.ShareLinkView>;
export interface Upload {
  key: string;
  uploadId: string;
  initiated: string;
}
export interface SearchItem {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  lastModified: string;
}
export interface SearchPage {
  items: SearchItem[];
  nextCursor: string | null;
}

export type KeyAction = Static<typeof Keys.ScopeAction>;
export const KEY_ACTIONS: readonly KeyAction[] = ['GetObject', 'PutObject', 'DeleteObject', 'ListBucket'];
export type KeyScope = Static<typeof Keys.Scope>;
/** What the console sends (a policy as a document or as JSON text); a key's own permissions are one of these. */
export type KeyPermissions = Static<typeof Keys.PermissionsInput>;
export type AccessKey = Static<typeof Keys.KeyView>;
export type AccessKeyWithSecret = Static<typeof Keys.IssuedKeyView>;
export type EffectivePermissions = Static<typeof Keys.Effective>;
export type Simulation = Static<typeof Keys.Simulation>;

export interface AuditItem {
  id: string;
  time: string;
  event: string;
  subject: string;
  bucket: string | null;
  details: Record<string, unknown>;
}
export interface AuditPage {
  items: AuditItem[];
  nextCursor: string | null;
}

export interface VersionInfo {
  version: string;
  build: string;
  node: string;
}
export interface WebhookStatus {
  enabled: boolean;
  counts: { pending: number; delivered: number; failed: number };
  oldestPendingAgeSeconds: number | null;
  lastError: { message: string; at: string } | null;
}

// ---- routes being built in parallel (issues 7, 8, 10): loose shapes ----

export interface ReplicationStatus {
  enabled?: boolean;
  targetBucket?: string;
  outbox?: { pending?: number; inflight?: number; failed?: number };
  oldestPendingAgeSeconds?: number | null;
  lastDrain?: { at?: string; count?: number; errorClass?: string | null } | null;
  tiering?: { enabled?: boolean; stubs?: number; restored?: number; rehydrating?: number } | null;
}
export interface ReplicationFailure {
  bucket: string;
  key: string;
  attempts?: number;
  lastError?: string | null;
  failedAt?: string;
}
export interface ReplicationFailedPage {
  items: ReplicationFailure[];
  nextCursor?: string | null;
}
export interface ReconcileJob {
  id: string;
  state?: string;
  bucket?: string | null;
  scanned?: number;
  enqueued?: number;
  errors?: number;
  error?: string | null;
  startedAt?: string;
  finishedAt?: string | null;
}
export interface BackupSchedule {
  enabled?: boolean;
  running?: boolean;
  policy?: {
    scope?: string | null;
    cron?: string | null;
    intervalMinutes?: number | null;
    keepLast?: number;
    maxAgeDays?: number;
    pushToReplication?: boolean;
  };
  snapshots?: { count?: number; bytes?: number; newestAt?: string | null; oldestAt?: string | null };
  runs?: { started?: number; succeeded?: number; failed?: number };
  lastRun?: {
    startedAt?: string;
    finishedAt?: string;
    result?: string;
    snapshots?: number;
    bytes?: number;
    pruned?: number;
    error?: string | null;
  } | null;
  nextRunAt?: string | null;
}
export interface InstanceRestored {
  bucketsRestored?: number;
  objectsRestored?: number;
}
export interface IntegrityPass {
  startedAt?: string;
  finishedAt?: string;
  trigger?: string;
  objectsChecked?: number;
  bytesChecked?: number;
  corruptFound?: number;
  repaired?: number;
  objectsTotal?: number;
  bytesTotal?: number;
  percent?: number;
}
export interface IntegrityStatus {
  enabled?: boolean;
  counts?: { ok?: number; corrupt?: number; unchecked?: number };
  currentPass?: IntegrityPass | null;
  lastFullPass?: IntegrityPass | null;
  nextPassAt?: string | null;
  repairAvailable?: boolean;
}
export interface CorruptItem {
  bucket: string;
  key: string;
  versionId?: string;
  size?: number;
  detectedAt?: string;
  checkedAt?: string;
  reason?: string;
  detail?: string | null;
}
export interface CorruptPage {
  items: CorruptItem[];
  nextCursor?: string | null;
}
export interface StorageSeries {
  step?: number;
  points?: Array<{ t: string; bytes?: number | null; objects?: number | null; versions?: number | null }>;
}
export interface RequestSeries {
  step?: number;
  points?: Array<{
    t: string;
    requestsPerSecond?: number | null;
    errorsPerSecond?: number | null;
    requests?: number | null;
    clientErrors?: number | null;
    serverErrors?: number | null;
  }>;
  totals?: { requests?: number; clientErrors?: number; serverErrors?: number };
}
export interface BucketBreakdown {
  totals?: { buckets?: number; bytes?: number; objects?: number; versions?: number };
  buckets?: Array<{ bucket: string; bytes?: number; objects?: number; share?: number }>;
}
export type BucketQuotaView = Static<typeof Buckets.QuotaResponse>;

// Bucket notifications (docs/notifications.md): targets with their delivery status, dead letters, and a bucket's
// configuration.
export type NotificationTarget = Static<typeof Notify.TargetBody>;
export type TargetStatus = NotificationTarget['status'];
export type DeadLetter = Static<typeof Notify.DeadLetter>;
export interface DeadLetterPage {
  items: DeadLetter[];
  nextCursor: string | null;
}
export type BucketNotification = Static<typeof Notify.NotificationResponse>;
export type NotificationRuleView = BucketNotification['rules'][number];
/** What the console sends: `id` and `kind` may be left out (generated, Queue). */
export type BucketNotificationInput = Static<typeof Notify.NotificationBody>;
