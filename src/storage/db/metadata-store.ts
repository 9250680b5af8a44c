// The metadata database and its repositories, opened once and passed down from app.ts.

import { openDatabase, runTransaction, type Db, type SchemaVersions } from './database.js';
import { WalSync, type WalSyncOptions } from './wal-sync.js';
import { Checkpointer, type CheckpointerOptions } from './checkpointer.js';
import { SharedTransactions } from './shared-transactions.js';
import { AccessKeysRepo } from './access-keys-repo.js';
import { ShareLinksRepo } from './share-links-repo.js';
import { AdminUsersRepo } from './admin-users-repo.js';
import { AuditRepo } from './audit-repo.js';
import { BlobGcRepo } from './blob-gc-repo.js';
import { BucketsRepo } from './buckets-repo.js';
import { CompletedUploadsRepo } from './completed-uploads-repo.js';
import { InlineBlobsRepo } from './inline-blobs-repo.js';
import { isInlineBlobId } from '../blobs/blob-tree.js';
import { InstanceRepo } from './instance-repo.js';
import { MultipartRepo } from './multipart-repo.js';
import { ObjectSearchRepo } from './object-search-repo.js';
import { ObjectsRepo } from './objects-repo.js';
import { RefreshTokensRepo } from './refresh-tokens-repo.js';

export class MetadataStore {
  readonly buckets: BucketsRepo;
  readonly objects: ObjectsRepo;
  readonly multipart: MultipartRepo;
  /** Multipart uploads completed in the last hour, for retried completions. */
  readonly completedUploads: CompletedUploadsRepo;
  readonly blobGc: BlobGcRepo;
  readonly adminUsers: AdminUsersRepo;
  readonly inlineBlobs: InlineBlobsRepo;
  readonly accessKeys: AccessKeysRepo;
  /** Share links: presigned URLs signed by keys made for them. */
  readonly shareLinks: ShareLinksRepo;
  readonly refreshTokens: RefreshTokensRepo;
  readonly audit: AuditRepo;
  readonly instance: InstanceRepo;
  /** Cross-bucket search over current object versions (read-only). */
  readonly objectSearch: ObjectSearchRepo;

  private readonly walSync: WalSync;
  private readonly shared: SharedTransactions;
  private checkpointer: Checkpointer | undefined;

  /** The schema version found on open and the one now (app.ts logs a migration). */
  readonly schema: SchemaVersions;

  private constructor(
    readonly db: Db,
    private readonly file: string,
    { schema, walOptions = {} }: { schema: SchemaVersions; walOptions?: WalSyncOptions | undefined },
  ) {
    this.schema = schema;
    const totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
    // Rows a migration changed at open (creating an FTS5 table writes its config rows) were never reported to a
    // client, and the first barrier's fsync of the WAL covers them anyway: count from here.
    const atOpen = totalChanges.get() as number;
    this.walSync = new WalSync(`${file}-wal`, () => (totalChanges.get() as number) - atOpen, walOptions);
    this.shared = new SharedTransactions(db);
    this.buckets = new BucketsRepo(db);
    this.objects = new ObjectsRepo(db);
    this.multipart = new MultipartRepo(db);
    this.completedUploads = new CompletedUploadsRepo(db);
    this.blobGc = new BlobGcRepo(db);
    this.adminUsers = new AdminUsersRepo(db);
    this.inlineBlobs = new InlineBlobsRepo(db);
    this.accessKeys = new AccessKeysRepo(db);
    this.shareLinks = new ShareLinksRepo(db);
    this.refreshTokens = new RefreshTokensRepo(db);
    this.audit = new AuditRepo(db);
    this.instance = new InstanceRepo(db);
    this.objectSearch = new ObjectSearchRepo(db);
  }

  /**
   * Opens and migrates. Throws DataDirError for a database from a newer release (database.ts `migrate`).
   * `wal.onFailure` is told when an fsync of the WAL fails: nothing is acknowledged after that (wal-sync.ts).
   */
  static open(file: string, opts: { wal?: WalSyncOptions } = {}): MetadataStore {
    const { db, schema } = openDatabase(file);
    return new MetadataStore(db, file, { schema, walOptions: opts.wal });
  }

  /**
   * Runs fn in one synchronous transaction (IMMEDIATE: the writer lock is taken up front). Never pass async code.
   * The commit is not durable until `durable()` resolves: answer a client only after awaiting it.
   */
  transaction<T>(fn: () => T): T {
    return runTransaction(this.db, fn, 'immediate');
  }

  /**
   * Runs fn in a transaction shared with the other writes queued in this turn of the event loop
   * (shared-transactions.ts): it commits, or throws and rolls back, alone as far as its caller can tell, but the batch
   * pays one COMMIT. fn may run twice (when a write of its batch throws, the batch runs again with savepoints), so it
   * must only read and write through this store. For the hot write path (new object versions). Resolves once
   * committed, not yet durable.
   */
  transactionShared<T>(fn: () => T): Promise<T> {
    return this.shared.run(fn);
  }

  /** True while a committed write is not yet covered by a WAL fsync. */
  get hasUndurableCommits(): boolean {
    return this.walSync.isDirty;
  }

  /** WAL fsyncs completed so far. */
  get walFsyncs(): number {
    return this.walSync.syncCount;
  }

  /** Resolves when every transaction committed so far is on disk (one shared WAL fsync for concurrent callers). */
  durable(): Promise<void> {
    return this.walSync.barrier();
  }

  /**
   * Drops the last reference's claim on a blob. Call inside the transaction that removes the reference. An inline
   * blob's bytes go with it (nothing else can reference them); a file blob is queued for the blob GC, which unlinks
   * it once the commit is durable and no reader holds it.
   */
  releaseBlob(blobId: string, now: number): void {
    if (isInlineBlobId(blobId)) this.inlineBlobs.delete(blobId);
    else this.blobGc.enqueue(blobId, now);
  }

  /** True when any committed row (object, object part or upload part) references the blob. */
  isBlobReferenced(blobId: string): boolean {
    return this.objects.isBlobReferenced(blobId) || this.multipart.isBlobReferenced(blobId);
  }

  /**
   * Moves WAL checkpoints off the event loop into a worker thread (the server does this; tests that open a store
   * directly keep SQLite's automatic checkpoints). Idempotent.
   */
  startBackgroundCheckpoints(opts?: CheckpointerOptions): Checkpointer {
    this.checkpointer ??= Checkpointer.start(this.db, this.file, opts);
    return this.checkpointer;
  }

  /** Makes the last commits durable, then closes the connection. */
  async close(): Promise<void> {
    if (!this.db.open) return;
    this.shared.flush();
    await this.checkpointer?.stop();
    this.checkpointer = undefined;
    await this.walSync.barrier().catch(() => undefined);
    await this.walSync.close();
    this.db.close();
  }
}
