// The audit catalog: every event name an audit record may carry (GET /api/admin/audit/catalog serves this list).
// Add new names here, in the group they belong to; the list is the one source for the filter dropdown.

export const AUDIT_EVENTS = [
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'auth.refresh_reused',
  'user.created',
  'user.role_changed',
  'user.password_reset',
  'user.password_changed',
  'user.deleted',
  'key.created',
  'key.updated',
  'key.rotated',
  'key.revoked',
  'bucket.created',
  'bucket.deleted',
  'bucket.config_updated',
  'bucket.config_deleted',
  'object.uploaded',
  'object.deleted',
  'object.batch_deleted',
  'object.tagging_updated',
  'object.retention_updated',
  'object.legal_hold_updated',
  'object.presigned',
  'share.revoked',
  'object.zip_downloaded',
  'object.upload_aborted',
  'backup.exported',
  'backup.restored',
  'bucket.restored',
  'backup.run_started',
  'replication.retried',
  'replication.reconcile_started',
  'integrity.scrub_started',
  'integrity.object_repaired',
  'object.upload_started',
  'object.copied',
  'object.batch_copied',
  'object.batch_moved',
  'object.metadata_updated',
  'bucket.emptied',
  'notification_target.created',
  'notification_target.updated',
  'notification_target.deleted',
  'notification_target.retried',
] as const;

export type AuditEvent = (typeof AUDIT_EVENTS)[number];

export interface AuditRecord {
  event: AuditEvent;
  /** Who acted: the admin username, or the attempted username for a failed login. */
  subject: string;
  /** The bucket concerned, when there is one (the audit list filters on it). */
  bucket?: string;
  /** Small, JSON-serialisable context (object key, key id, changed fields). Secret-looking fields are stripped. */
  details?: Record<string, unknown>;
}

/** Where admin routes send audit records. Never blocks and never throws: a full buffer drops and counts. */
export interface AuditSink {
  record(entry: AuditRecord): void;
}
