// Numbered, forward-only schema migrations, applied in order and tracked in PRAGMA user_version.
// Never edit a released migration: add the next number.

export const MIGRATIONS: readonly string[] = [
  // 1: buckets, object versions (one row each), multipart uploads and their parts, the blob GC queue.
  `
  CREATE TABLE buckets (
    name        TEXT PRIMARY KEY,
    created_at  INTEGER NOT NULL,
    region      TEXT NOT NULL,
    versioning  TEXT NOT NULL DEFAULT 'Unversioned',
    object_lock INTEGER NOT NULL DEFAULT 0,
    config      TEXT NOT NULL DEFAULT '{}'
  ) WITHOUT ROWID;

  CREATE TABLE objects (
    id                 INTEGER PRIMARY KEY,
    bucket             TEXT NOT NULL,
    key                TEXT NOT NULL,
    version_id         TEXT NOT NULL,
    is_latest          INTEGER NOT NULL,
    is_delete_marker   INTEGER NOT NULL DEFAULT 0,
    size               INTEGER NOT NULL,
    etag               TEXT NOT NULL,
    last_modified      INTEGER NOT NULL,
    headers            TEXT,
    user_meta          TEXT,
    checksum_algorithm TEXT,
    checksum_value     TEXT,
    checksum_type      TEXT,
    blob_id            TEXT,
    part_count         INTEGER,
    storage_class      TEXT NOT NULL DEFAULT 'STANDARD'
  );
  CREATE UNIQUE INDEX objects_by_version ON objects(bucket, key, version_id);
  CREATE INDEX objects_by_key_order ON objects(bucket, key, id);
  CREATE INDEX objects_current ON objects(bucket, key) WHERE is_latest = 1 AND is_delete_marker = 0;
  CREATE INDEX objects_by_blob ON objects(blob_id) WHERE blob_id IS NOT NULL;

  CREATE TABLE object_parts (
    object_id   INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
    part_number INTEGER NOT NULL,
    blob_id     TEXT NOT NULL,
    size        INTEGER NOT NULL,
    etag        TEXT NOT NULL,
    checksum    TEXT,
    PRIMARY KEY (object_id, part_number)
  ) WITHOUT ROWID;
  CREATE INDEX object_parts_by_blob ON object_parts(blob_id);

  CREATE TABLE multipart_uploads (
    upload_id          TEXT PRIMARY KEY,
    bucket             TEXT NOT NULL,
    key                TEXT NOT NULL,
    initiated          INTEGER NOT NULL,
    headers            TEXT,
    user_meta          TEXT,
    checksum_algorithm TEXT,
    checksum_type      TEXT,
    storage_class      TEXT NOT NULL DEFAULT 'STANDARD'
  ) WITHOUT ROWID;
  CREATE INDEX multipart_uploads_by_key ON multipart_uploads(bucket, key, initiated);

  CREATE TABLE upload_parts (
    upload_id     TEXT NOT NULL REFERENCES multipart_uploads(upload_id) ON DELETE CASCADE,
    part_number   INTEGER NOT NULL,
    blob_id       TEXT NOT NULL,
    size          INTEGER NOT NULL,
    etag          TEXT NOT NULL,
    checksums     TEXT,
    last_modified INTEGER NOT NULL,
    PRIMARY KEY (upload_id, part_number)
  ) WITHOUT ROWID;
  CREATE INDEX upload_parts_by_blob ON upload_parts(blob_id);

  CREATE TABLE instance (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE blob_gc (
    blob_id   TEXT PRIMARY KEY,
    queued_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 2: per-version tags, retention and legal hold; upload-time tags and lock settings; versions listed newest first.
  `
  ALTER TABLE objects ADD COLUMN tags TEXT;
  ALTER TABLE objects ADD COLUMN retention_mode TEXT;
  ALTER TABLE objects ADD COLUMN retain_until TEXT;
  ALTER TABLE objects ADD COLUMN legal_hold INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE multipart_uploads ADD COLUMN tags TEXT;
  ALTER TABLE multipart_uploads ADD COLUMN lock TEXT;
  CREATE INDEX objects_versions_newest_first ON objects(bucket, key, id DESC);
  `,
  // 3: admin users (the bootstrap admin from ADMIN_USERNAME is inserted at boot).
  `
  CREATE TABLE admin_users (
    id                   TEXT PRIMARY KEY,
    username             TEXT NOT NULL UNIQUE,
    password_hash        TEXT NOT NULL,
    role                 TEXT NOT NULL CHECK (role IN ('full-admin', 'read-only')),
    must_change_password INTEGER NOT NULL DEFAULT 0,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 4: inline blobs: the sealed bytes of small objects, committed with the row that references them.
  `
  CREATE TABLE inline_blobs (
    blob_id TEXT PRIMARY KEY,
    sealed  BLOB NOT NULL
  );
  `,
  // 5: access keys: scoped S3 credentials; the secret is sealed (AES-256-GCM, see lib/secret-box.ts), never plaintext.
  `
  CREATE TABLE access_keys (
    access_key_id TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    enabled       INTEGER NOT NULL DEFAULT 1,
    secret_sealed BLOB NOT NULL,
    permissions   TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    created_by    TEXT NOT NULL,
    last_used_at  INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX access_keys_by_created ON access_keys(created_at, access_key_id);
  `,
  // 6: the webhook outbox: one row per event to deliver, written in the transaction that commits the change, so it
  // adds two pages to that commit (the row and its entry in the due index) and nothing else. Rows are found by due
  // time while pending and by finish time once delivered or failed (partial indexes: an insert touches only the
  // first, which also covers the oldest-pending query). Running totals of delivered and failed rows are kept beside,
  // updated with each batch of outcomes, so reading the counts never scans days of history.
  `
  CREATE TABLE webhook_outbox (
    id              INTEGER PRIMARY KEY,
    delivery_id     TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    body            TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    last_attempt_at INTEGER,
    created_at      INTEGER NOT NULL,
    finished_at     INTEGER
  );
  CREATE INDEX webhook_outbox_due ON webhook_outbox(next_attempt_at, id, created_at) WHERE status = 'pending';
  CREATE INDEX webhook_outbox_finished ON webhook_outbox(status, finished_at) WHERE status <> 'pending';

  CREATE TABLE webhook_outbox_totals (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
];
