// The metadata database and its repositories, opened once and passed down from app.ts.

import { openDatabase, type Db } from './database.js';
import { BlobGcRepo } from './blob-gc-repo.js';
import { BucketsRepo } from './buckets-repo.js';
import { MultipartRepo } from './multipart-repo.js';
import { ObjectsRepo } from './objects-repo.js';

export class MetadataStore {
  readonly buckets: BucketsRepo;
  readonly objects: ObjectsRepo;
  readonly multipart: MultipartRepo;
  readonly blobGc: BlobGcRepo;

  private constructor(readonly db: Db) {
    this.buckets = new BucketsRepo(db);
    this.objects = new ObjectsRepo(db);
    this.multipart = new MultipartRepo(db);
    this.blobGc = new BlobGcRepo(db);
  }

  static open(file: string): MetadataStore {
    return new MetadataStore(openDatabase(file));
  }

  /** Runs fn in one synchronous transaction (IMMEDIATE: the writer lock is taken up front). Never pass async code. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** True when any committed row (object, object part or upload part) references the blob. */
  isBlobReferenced(blobId: string): boolean {
    return this.objects.isBlobReferenced(blobId) || this.multipart.isBlobReferenced(blobId);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
