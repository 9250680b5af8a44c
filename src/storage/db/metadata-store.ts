// The metadata database and its repositories, opened once and passed down from app.ts.

import { openDatabase, type Db } from './database.js';
import { WalSync } from './wal-sync.js';
import { AdminUsersRepo } from './admin-users-repo.js';
import { BlobGcRepo } from './blob-gc-repo.js';
import { BucketsRepo } from './buckets-repo.js';
import { MultipartRepo } from './multipart-repo.js';
import { ObjectSearchRepo } from './object-search-repo.js';
import { ObjectsRepo } from './objects-repo.js';

export class MetadataStore {
  readonly buckets: BucketsRepo;
  readonly objects: ObjectsRepo;
  readonly multipart: MultipartRepo;
  readonly blobGc: BlobGcRepo;
  readonly adminUsers: AdminUsersRepo;
  /** Cross-bucket search over current object versions (read-only). */
  readonly objectSearch: ObjectSearchRepo;

  private readonly walSync: WalSync;

  private constructor(readonly db: Db, file: string) {
    const totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
    // Rows a migration changed at open (creating an FTS5 table writes its config rows) were never reported to a
    // client, and the first barrier's fsync of the WAL covers them anyway: count from here.
    const atOpen = totalChanges.get() as number;
    this.walSync = new WalSync(`${file}-wal`, () => (totalChanges.get() as number) - atOpen);
    this.buckets = new BucketsRepo(db);
    this.objects = new ObjectsRepo(db);
    this.multipart = new MultipartRepo(db);
    this.blobGc = new BlobGcRepo(db);
    this.adminUsers = new AdminUsersRepo(db);
    this.objectSearch = new ObjectSearchRepo(db);
  }

  static open(file: string): MetadataStore {
    return new MetadataStore(openDatabase(file), file);
  }

  /**
   * Runs fn in one synchronous transaction (IMMEDIATE: the writer lock is taken up front). Never pass async code.
   * The commit is not durable until `durable()` resolves: answer a client only after awaiting it.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
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

  /** True when any committed row (object, object part or upload part) references the blob. */
  isBlobReferenced(blobId: string): boolean {
    return this.objects.isBlobReferenced(blobId) || this.multipart.isBlobReferenced(blobId);
  }

  /** Makes the last commits durable, then closes the connection. */
  async close(): Promise<void> {
    if (!this.db.open) return;
    await this.walSync.barrier().catch(() => undefined);
    await this.walSync.close();
    this.db.close();
  }
}
