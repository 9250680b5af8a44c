// The real services over a real MetadataStore and BlobStore in a temp directory, built as app.ts builds them, with
// one injectable clock: for tests of service behaviour that would otherwise need days to pass (lifecycle).

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BucketService } from '../../src/services/bucket-service.js';
import { LifecycleService, type LifecycleServiceOptions } from '../../src/services/lifecycle-service.js';
import { MultipartService } from '../../src/services/objects/multipart-service.js';
import { ReadPins } from '../../src/services/objects/object-reader.js';
import { ObjectService, type BodyInput, type ObjectServiceOptions } from '../../src/services/objects/object-service.js';
import { QuotaGate, type QuotaAdmitHook } from '../../src/services/objects/quota-gate.js';
import { BlobStore } from '../../src/storage/blobs/blob-store.js';
import { LifecycleRepo } from '../../src/storage/db/lifecycle-repo.js';
import { MetadataStore } from '../../src/storage/db/metadata-store.js';

/** A clock tests move by hand; every service of the fixture reads it. */
export class FakeClock {
  constructor(public ms: number) {}
  now = (): number => this.ms;
  date(): Date {
    return new Date(this.ms);
  }
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
}

export interface ServiceFixture {
  dir: string;
  clock: FakeClock;
  meta: MetadataStore;
  blobs: BlobStore;
  buckets: BucketService;
  objects: ObjectService;
  multipart: MultipartService;
  /** The read pins the object service takes (a blob being read is pinned). */
  pins: ReadPins;
  /** The quota holds of writes in flight, as app.ts builds them. */
  quotas: QuotaGate;
  /** A lifecycle service over the fixture (options such as the batch size and action budget overridable). */
  lifecycle(opts?: Partial<Omit<LifecycleServiceOptions, 'repo' | 'objects' | 'multipart'>>): LifecycleService;
  close(): Promise<void>;
}

export async function openServices(
  startIso: string,
  objectOpts: Pick<ObjectServiceOptions, 'onReadError' | 'events'> & { onQuotaAdmitted?: QuotaAdmitHook } = {},
): Promise<ServiceFixture> {
  // tmpfs where there is one: these tests are about behaviour, not durability, and every commit fsyncs.
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'store-svc-'));
  const clock = new FakeClock(Date.parse(startIso));
  const meta = MetadataStore.open(join(dir, 'meta.db'));
  const blobs = new BlobStore({ dataDir: dir, masterKey: randomBytes(32) });
  await blobs.init();
  const pins = new ReadPins();
  const buckets = new BucketService({ meta, region: 'us-east-1', now: clock.now });
  const { onQuotaAdmitted, ...objectOptions } = objectOpts;
  const quotas = new QuotaGate(meta, onQuotaAdmitted);
  const objects = new ObjectService({ meta, blobs, pins, now: clock.now, quotas, ...objectOptions });
  const multipart = new MultipartService({ meta, blobs, objects, now: clock.now });
  return {
    dir,
    clock,
    meta,
    blobs,
    buckets,
    objects,
    multipart,
    pins,
    quotas,
    lifecycle: (opts = {}) => new LifecycleService({ repo: new LifecycleRepo(meta.db), objects, multipart, ...opts }),
    async close() {
      await meta.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A request body of these bytes, as the S3 plane would hand it to a service. */
export function body(data: string | Buffer): BodyInput {
  const bytes = Buffer.from(data);
  return { source: Readable.from([bytes]), size: bytes.length };
}
