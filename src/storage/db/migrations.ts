/* eslint-disable max-lines -- the ordered list of released schema migrations: one file keeps the numbering visible */
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
  // 6: per-bucket usage counters for the admin bucket list: kept by triggers inside the transaction of every object row
  // change, so no write path can forget them (a GROUP BY over a 1M-object bucket took 2.2 s; docs/decisions.md).
  // objects/bytes: current versions that are not delete markers; versions/version bytes: every row.
  `
  CREATE TABLE bucket_usage (
    bucket        TEXT PRIMARY KEY,
    object_count  INTEGER NOT NULL DEFAULT 0,
    object_bytes  INTEGER NOT NULL DEFAULT 0,
    version_count INTEGER NOT NULL DEFAULT 0,
    version_bytes INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  INSERT INTO bucket_usage (bucket, object_count, object_bytes, version_count, version_bytes)
    SELECT b.name,
      (SELECT count(*) FROM objects o WHERE o.bucket = b.name AND o.is_latest = 1 AND o.is_delete_marker = 0),
      (SELECT coalesce(sum(size), 0) FROM objects o WHERE o.bucket = b.name AND o.is_latest = 1 AND o.is_delete_marker = 0),
      (SELECT count(*) FROM objects o WHERE o.bucket = b.name),
      (SELECT coalesce(sum(size), 0) FROM objects o WHERE o.bucket = b.name)
    FROM buckets b;
  CREATE TRIGGER bucket_usage_bucket_created AFTER INSERT ON buckets BEGIN
    INSERT OR REPLACE INTO bucket_usage (bucket) VALUES (new.name);
  END;
  CREATE TRIGGER bucket_usage_bucket_deleted AFTER DELETE ON buckets BEGIN
    DELETE FROM bucket_usage WHERE bucket = old.name;
  END;
  CREATE TRIGGER bucket_usage_object_added AFTER INSERT ON objects BEGIN
    UPDATE bucket_usage SET
      object_count = object_count + (new.is_latest AND NOT new.is_delete_marker),
      object_bytes = object_bytes + (CASE WHEN new.is_latest AND NOT new.is_delete_marker THEN new.size ELSE 0 END),
      version_count = version_count + 1,
      version_bytes = version_bytes + new.size
    WHERE bucket = new.bucket;
  END;
  CREATE TRIGGER bucket_usage_object_removed AFTER DELETE ON objects BEGIN
    UPDATE bucket_usage SET
      object_count = object_count - (old.is_latest AND NOT old.is_delete_marker),
      object_bytes = object_bytes - (CASE WHEN old.is_latest AND NOT old.is_delete_marker THEN old.size ELSE 0 END),
      version_count = version_count - 1,
      version_bytes = version_bytes - old.size
    WHERE bucket = old.bucket;
  END;
  CREATE TRIGGER bucket_usage_object_changed AFTER UPDATE OF bucket, is_latest, is_delete_marker, size ON objects
  WHEN old.bucket IS NOT new.bucket OR old.is_latest IS NOT new.is_latest
    OR old.is_delete_marker IS NOT new.is_delete_marker OR old.size IS NOT new.size
  BEGIN
    UPDATE bucket_usage SET
      object_count = object_count - (old.is_latest AND NOT old.is_delete_marker),
      object_bytes = object_bytes - (CASE WHEN old.is_latest AND NOT old.is_delete_marker THEN old.size ELSE 0 END),
      version_count = version_count - 1,
      version_bytes = version_bytes - old.size
    WHERE bucket = old.bucket;
    UPDATE bucket_usage SET
      object_count = object_count + (new.is_latest AND NOT new.is_delete_marker),
      object_bytes = object_bytes + (CASE WHEN new.is_latest AND NOT new.is_delete_marker THEN new.size ELSE 0 END),
      version_count = version_count + 1,
      version_bytes = version_bytes + new.size
    WHERE bucket = new.bucket;
  END;
  `,
  // 7: refresh-token sessions (only SHA-256 digests of the tokens; a family is one sign-in and its rotations) and the
  // persisted audit log (id is the insertion order, which keyset paging uses as the tie-breaker).
  `
  CREATE TABLE refresh_tokens (
    token_hash  TEXT PRIMARY KEY,
    family_id   TEXT NOT NULL,
    user_id     TEXT NOT NULL REFERENCES admin_users(id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    rotated     INTEGER NOT NULL DEFAULT 0,
    revoked     INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  CREATE INDEX refresh_tokens_by_family ON refresh_tokens(family_id);
  CREATE INDEX refresh_tokens_by_user ON refresh_tokens(user_id);
  CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens(expires_at);

  CREATE TABLE audit (
    id      INTEGER PRIMARY KEY,
    at      INTEGER NOT NULL,
    event   TEXT NOT NULL,
    subject TEXT NOT NULL,
    bucket  TEXT,
    details TEXT
  );
  CREATE INDEX audit_newest ON audit(at, id);
  CREATE INDEX audit_by_event ON audit(event, at, id);
  CREATE INDEX audit_by_subject ON audit(subject, at, id);
  CREATE INDEX audit_by_bucket ON audit(bucket, at, id) WHERE bucket IS NOT NULL;
  `,
  // 8: object search (docs/admin-search.md). A trigram full-text index over the keys of current versions (the
  // latest version when it is not a delete marker), contentless (the keys stay in objects), case-folded (exact-case
  // matches are post-filtered), with contentless_delete so a row is removed by rowid alone. Writers do not index:
  // triggers queue the row ids whose indexed state may have changed (a few microseconds in the writer's transaction)
  // and the search-index loop indexes them in batches; searches read the queued rows directly, so they never miss a
  // write. Existing rows are backfilled through the same queue, so the migration stays fast on a large instance.
  // Partial indexes on size and last-modified of current versions serve selective size and date filters; they carry
  // (bucket, key) so such a search sorts its matches without reading a table row for each.
  `
  CREATE VIRTUAL TABLE object_search USING fts5(
    key, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 0'
  );
  CREATE TABLE object_search_queue (object_id INTEGER PRIMARY KEY);
  CREATE TRIGGER object_search_on_insert AFTER INSERT ON objects
    WHEN new.is_latest = 1 AND new.is_delete_marker = 0
  BEGIN
    INSERT OR IGNORE INTO object_search_queue (object_id) VALUES (new.id);
  END;
  CREATE TRIGGER object_search_on_delete AFTER DELETE ON objects
    WHEN old.is_latest = 1 AND old.is_delete_marker = 0
  BEGIN
    INSERT OR IGNORE INTO object_search_queue (object_id) VALUES (old.id);
  END;
  CREATE TRIGGER object_search_on_update AFTER UPDATE OF id, key, is_latest, is_delete_marker ON objects
    WHEN (old.is_latest = 1 AND old.is_delete_marker = 0) <> (new.is_latest = 1 AND new.is_delete_marker = 0)
      OR (new.is_latest = 1 AND new.is_delete_marker = 0 AND (old.id <> new.id OR old.key IS NOT new.key))
  BEGIN
    INSERT OR IGNORE INTO object_search_queue (object_id) VALUES (old.id);
    INSERT OR IGNORE INTO object_search_queue (object_id) VALUES (new.id);
  END;
  INSERT INTO object_search_queue (object_id) SELECT id FROM objects WHERE is_latest = 1 AND is_delete_marker = 0;
  CREATE INDEX objects_current_by_size ON objects(size, bucket, key) WHERE is_latest = 1 AND is_delete_marker = 0;
  CREATE INDEX objects_current_by_modified ON objects(last_modified, bucket, key) WHERE is_latest = 1 AND is_delete_marker = 0;
  `,
  // 9: the webhook outbox: one row per event to deliver, written in the transaction that commits the change, so it
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
  // 10: replication and tiering (docs/replication.md). The replication outbox holds one row per key with a change
  // not yet mirrored: the committing transaction upserts it (a burst to one key stays one row; `gen` counts the
  // changes, so the drain knows whether the key changed again while it was being sent). Reconcile jobs. Tier state
  // on object versions: `tier_key` names the remote copy under the reserved tier prefix, `tier_state` is 'stub'
  // (bytes only on the remote) or 'restored' (local again until `tier_restored_until`, the remote copy kept).
  // Remote copies whose version went away are queued in tier_gc by triggers, so no write path can forget them;
  // tier_uploads records an upload in progress, so a crash before the flip leaves a key to clean up, not an orphan.
  `
  CREATE TABLE replication_outbox (
    id              INTEGER PRIMARY KEY,
    bucket          TEXT NOT NULL,
    key             TEXT NOT NULL,
    kind            TEXT NOT NULL DEFAULT 'object' CHECK (kind IN ('object', 'tags')),
    gen             INTEGER NOT NULL DEFAULT 1,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'inflight', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX replication_outbox_by_key ON replication_outbox(bucket, key);
  CREATE INDEX replication_outbox_due ON replication_outbox(next_attempt_at, id) WHERE status = 'pending';
  CREATE INDEX replication_outbox_by_status ON replication_outbox(status, id);

  CREATE TABLE replication_jobs (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    bucket      TEXT,
    state       TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed')),
    scanned     INTEGER NOT NULL DEFAULT 0,
    enqueued    INTEGER NOT NULL DEFAULT 0,
    errors      INTEGER NOT NULL DEFAULT 0,
    error       TEXT,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX replication_jobs_running ON replication_jobs(state) WHERE state = 'running';

  ALTER TABLE objects ADD COLUMN tier_key TEXT;
  ALTER TABLE objects ADD COLUMN tier_state TEXT;
  ALTER TABLE objects ADD COLUMN tier_restored_until INTEGER;
  ALTER TABLE objects ADD COLUMN tier_sha256 TEXT;
  CREATE INDEX objects_tiered ON objects(tier_state, tier_restored_until) WHERE tier_state IS NOT NULL;

  CREATE TABLE tier_gc (
    remote_key TEXT PRIMARY KEY,
    queued_at  INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE tier_uploads (
    remote_key TEXT PRIMARY KEY,
    object_id  INTEGER NOT NULL,
    started_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TRIGGER tier_gc_on_delete AFTER DELETE ON objects WHEN old.tier_key IS NOT NULL BEGIN
    INSERT OR IGNORE INTO tier_gc (remote_key, queued_at) VALUES (old.tier_key, CAST(unixepoch('subsec') * 1000 AS INTEGER));
  END;
  CREATE TRIGGER tier_gc_on_update AFTER UPDATE OF tier_key ON objects
    WHEN old.tier_key IS NOT NULL AND old.tier_key IS NOT new.tier_key
  BEGIN
    INSERT OR IGNORE INTO tier_gc (remote_key, queued_at) VALUES (old.tier_key, CAST(unixepoch('subsec') * 1000 AS INTEGER));
  END;
  `,
  // 11: integrity and analytics (docs/integrity-analytics.md). object_integrity: the last check of each object version
  // (no row: never checked), dropped with the version by its foreign key; integrity_totals: the counts by status and
  // the
  // number of delete markers (which have no bytes to check), kept by triggers so a status read never scans. Object
  // writes pay nothing for it except a delete marker's count. usage_samples: per-bucket usage at each usage-rollup
  // tick (bucket '' is the instance total); request_minutes: requests and errors per minute, surface and route class,
  // from in-memory counters; server_uptime: one row per process run, so analytics can tell "idle" from "down".
  `
  CREATE TABLE object_integrity (
    object_id   INTEGER PRIMARY KEY REFERENCES objects(id) ON DELETE CASCADE,
    status      TEXT NOT NULL CHECK (status IN ('ok', 'corrupt', 'unchecked')),
    checked_at  INTEGER NOT NULL,
    detected_at INTEGER,
    reason      TEXT,
    detail      TEXT
  );
  CREATE INDEX object_integrity_corrupt ON object_integrity(detected_at, object_id) WHERE status = 'corrupt';
  CREATE TABLE integrity_totals (
    name  TEXT PRIMARY KEY,
    count INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO integrity_totals (name, count) VALUES ('ok', 0), ('corrupt', 0), ('unchecked', 0),
    ('delete_markers', (SELECT count(*) FROM objects WHERE is_delete_marker = 1));
  CREATE TRIGGER object_integrity_added AFTER INSERT ON object_integrity BEGIN
    UPDATE integrity_totals SET count = count + 1 WHERE name = new.status;
  END;
  CREATE TRIGGER object_integrity_removed AFTER DELETE ON object_integrity BEGIN
    UPDATE integrity_totals SET count = count - 1 WHERE name = old.status;
  END;
  CREATE TRIGGER object_integrity_changed AFTER UPDATE OF status ON object_integrity WHEN old.status <> new.status BEGIN
    UPDATE integrity_totals SET count = count - 1 WHERE name = old.status;
    UPDATE integrity_totals SET count = count + 1 WHERE name = new.status;
  END;
  CREATE TRIGGER integrity_marker_added AFTER INSERT ON objects WHEN new.is_delete_marker = 1 BEGIN
    UPDATE integrity_totals SET count = count + 1 WHERE name = 'delete_markers';
  END;
  CREATE TRIGGER integrity_marker_removed AFTER DELETE ON objects WHEN old.is_delete_marker = 1 BEGIN
    UPDATE integrity_totals SET count = count - 1 WHERE name = 'delete_markers';
  END;
  CREATE TRIGGER integrity_marker_changed AFTER UPDATE OF is_delete_marker ON objects
  WHEN old.is_delete_marker IS NOT new.is_delete_marker BEGIN
    UPDATE integrity_totals SET count = count + new.is_delete_marker - old.is_delete_marker WHERE name = 'delete_markers';
  END;

  CREATE TABLE usage_samples (
    at       INTEGER NOT NULL,
    bucket   TEXT NOT NULL,
    bytes    INTEGER NOT NULL,
    objects  INTEGER NOT NULL,
    versions INTEGER NOT NULL,
    PRIMARY KEY (at, bucket)
  ) WITHOUT ROWID;
  CREATE INDEX usage_samples_by_bucket ON usage_samples(bucket, at);
  CREATE TABLE request_minutes (
    minute        INTEGER NOT NULL,
    surface       TEXT NOT NULL,
    route_class   TEXT NOT NULL,
    requests      INTEGER NOT NULL,
    client_errors INTEGER NOT NULL,
    server_errors INTEGER NOT NULL,
    PRIMARY KEY (minute, surface, route_class)
  ) WITHOUT ROWID;
  CREATE TABLE server_uptime (
    started_at   INTEGER PRIMARY KEY,
    last_seen_at INTEGER NOT NULL
  );
  `,
  // 12: drops objects_by_key_order (bucket, key, id). objects_versions_newest_first (bucket, key, id DESC) holds the
  // same columns and SQLite reads an index in either direction, so the planner chose the other one for every statement
  // on objects (docs/performance.md, "the write path's SQLite work"), while every insert and delete of a version still
  // updated both.
  `
  DROP INDEX IF EXISTS objects_by_key_order;
  `,
  // 13: completed multipart uploads, kept an hour so that a retried CompleteMultipartUpload (an SDK that timed out
  // waiting for the first answer) gets the same 200 and ETag (docs/s3-compatibility.md). `parts` is the completion's
  // part list as it was asked for; `result` what it answered. Pruned by age on every completion.
  `
  CREATE TABLE completed_uploads (
    upload_id    TEXT PRIMARY KEY,
    bucket       TEXT NOT NULL,
    key          TEXT NOT NULL,
    parts        TEXT NOT NULL,
    result       TEXT NOT NULL,
    completed_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX completed_uploads_by_time ON completed_uploads(completed_at);
  -- A bucket deleted (and perhaps made again) forgets them: a retry then meets NoSuchBucket or NoSuchUpload.
  CREATE TRIGGER completed_uploads_bucket_deleted AFTER DELETE ON buckets BEGIN
    DELETE FROM completed_uploads WHERE bucket = old.name;
  END;
  `,
  // 14: ACLs (issue 28). Each object version and each multipart upload may carry an ACL (JSON of core/acl/acl.ts
  // Acl; NULL: the owner's FULL_CONTROL). Every existing bucket gets ownership controls BucketOwnerEnforced, which is
  // how
  // Store behaved before; a bucket without them now behaves as AWS's after DeleteBucketOwnershipControls
  // (ObjectWriter).
  `
  ALTER TABLE objects ADD COLUMN acl TEXT;
  ALTER TABLE multipart_uploads ADD COLUMN acl TEXT;
  UPDATE buckets SET config = json_set(config, '$.ownershipControls', 'BucketOwnerEnforced')
    WHERE json_extract(config, '$.ownershipControls') IS NULL;
  `,
  // 15: bucket notification targets and their outbox (docs/notifications.md). A target's non-secret settings are JSON
  // in `config`; its secrets (a password, a bearer token) are sealed in `secrets` and never leave the server. One
  // outbox row per (event, target), inserted in the transaction that commits the change; `seq` orders a key's rows.
  `
  CREATE TABLE notification_targets (
    id         TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    config     TEXT NOT NULL,
    secrets    BLOB,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE notification_outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    target_id       TEXT NOT NULL,
    bucket          TEXT NOT NULL,
    key             TEXT NOT NULL,
    event_name      TEXT NOT NULL,
    body            TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending',
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    last_error      TEXT,
    finished_at     INTEGER
  );
  CREATE INDEX notification_outbox_due ON notification_outbox(target_id, next_attempt_at, id)
    WHERE status = 'pending';
  CREATE INDEX notification_outbox_key_order ON notification_outbox(target_id, bucket, key, id)
    WHERE status = 'pending';
  CREATE INDEX notification_outbox_finished ON notification_outbox(target_id, status, finished_at);
  `,
  // 16: access-key expiry and share links (docs/access-keys.md "Expiry", docs/admin-api.md "Share links"). A key
  // whose expires_at has passed cannot authenticate. A share link is a short-lived key created to sign one presigned
  // URL: its row here names the object and who made it; the key and the link are deleted together.
  `
  ALTER TABLE access_keys ADD COLUMN expires_at INTEGER;
  CREATE TABLE share_links (
    access_key_id TEXT PRIMARY KEY REFERENCES access_keys(access_key_id) ON DELETE CASCADE,
    bucket        TEXT NOT NULL,
    object_key    TEXT NOT NULL,
    version_id    TEXT,
    method        TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX share_links_by_expiry ON share_links(expires_at);
  CREATE INDEX share_links_by_creator ON share_links(created_by, created_at);
  `,
  // 17: a notification target's status without scanning its delivered rows (docs/notifications.md "Status and
  // metrics"): delivered rows are counted as they are delivered and pruned, and a partial index finds the latest
  // error. Counting a million delivered rows took 2-3 s of the event loop per status.
  `
  ALTER TABLE notification_targets ADD COLUMN delivered_count INTEGER NOT NULL DEFAULT 0;
  UPDATE notification_targets SET delivered_count =
    (SELECT COUNT(*) FROM notification_outbox o WHERE o.target_id = notification_targets.id AND o.status = 'delivered');
  CREATE INDEX notification_outbox_errors ON notification_outbox(target_id, id) WHERE last_error IS NOT NULL;
  `,
];
