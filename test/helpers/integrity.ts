// Helpers for integrity tests: damage a blob on disk or an inline blob in the database, an IntegrityService over a
// service fixture, a pass run to its end, and an in-process repair source holding good copies.

import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import type { AuditRecord, AuditSink } from '../../src/services/audit/audit-events.js';
import {
  IntegrityService,
  type IntegrityServiceOptions,
  type RepairSource,
} from '../../src/services/integrity/integrity-service.js';
import { ReadPins } from '../../src/services/objects/object-reader.js';
import { DEFAULT_SEGMENT_SIZE, HEADER_SIZE, TAG_SIZE } from '../../src/storage/blobs/blob-format.js';
import type { ServiceFixture } from './services.js';

/** File offset of plaintext byte `p` in a blob written with the default segment size (blob-format.ts). */
export function fileOffset(p: number): number {
  return (
    HEADER_SIZE + Math.floor(p / DEFAULT_SEGMENT_SIZE) * (DEFAULT_SEGMENT_SIZE + TAG_SIZE) + (p % DEFAULT_SEGMENT_SIZE)
  );
}

/** The blob ids of a key's versions, oldest first (from the data directory's database, read-only). */
export function blobIdsOf(dataDir: string, bucket: string, key: string): string[] {
  const db = new BetterSqlite3(join(dataDir, 'meta.db'), { readonly: true });
  try {
    return db
      .prepare('SELECT blob_id FROM objects WHERE bucket = ? AND key = ? ORDER BY id')
      .pluck()
      .all(bucket, key) as string[];
  } finally {
    db.close();
  }
}

/** Where a file blob lives under a data directory. */
export function blobPath(dataDir: string, id: string): string {
  return join(dataDir, 'blobs', id.slice(0, 2), id.slice(2, 4), id);
}

/** Flips one bit of the byte at `position` (default: inside the first segment's ciphertext). */
export async function flipByte(path: string, position = 100): Promise<void> {
  const file = await readFile(path);
  const fh = await open(path, 'r+');
  try {
    await fh.write(Buffer.from([(file[position] as number) ^ 0x01]), 0, 1, position);
  } finally {
    await fh.close();
  }
}

/** Flips a bit inside an inline blob's sealed bytes in the database. */
export function corruptInlineRow(fx: ServiceFixture, blobId: string, position = 80): void {
  const sealed = fx.meta.inlineBlobs.get(blobId) as Buffer;
  const copy = Buffer.from(sealed);
  copy[position] = (copy[position] as number) ^ 0x01;
  fx.meta.db.prepare('UPDATE inline_blobs SET sealed = ? WHERE blob_id = ?').run(copy, blobId);
}

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface IntegrityHarness {
  service: IntegrityService;
  audits: AuditRecord[];
  logs: LogLine[];
  pins: ReadPins;
  gauges: { counts: Record<string, number>; lastRunAt: Date | undefined }[];
}

/** An IntegrityService over the fixture's database and blobs (scrubber enabled, generous limits unless overridden). */
export function integrityOver(fx: ServiceFixture, overrides: Partial<IntegrityServiceOptions> = {}): IntegrityHarness {
  const audits: AuditRecord[] = [];
  const logs: LogLine[] = [];
  const gauges: IntegrityHarness['gauges'] = [];
  const audit: AuditSink = { record: (entry) => void audits.push(entry) };
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const pins = new ReadPins();
  const service = new IntegrityService({
    meta: fx.meta,
    blobs: fx.blobs,
    pins,
    logger,
    audit,
    enabled: true,
    limits: { intervalMs: 1000, objectsPerTick: 1000, bytesPerTick: 64 * 1024 * 1024 },
    passIntervalMs: 3_600_000,
    now: fx.clock.now,
    metrics: {
      hasIntegrity: true,
      setIntegrity: (counts, lastRunAt) => void gauges.push({ counts: { ...counts }, lastRunAt }),
    },
    ...overrides,
  });
  return { service, audits, logs, pins, gauges };
}

/** Ticks until no pass is running (or `maxTicks`); returns the ticks it took. */
export async function runPass(service: IntegrityService, maxTicks = 1000): Promise<number> {
  const signal = new AbortController().signal;
  let ticks = 0;
  do {
    await service.tick(signal);
    ticks += 1;
  } while (service.isRunning && ticks < maxTicks);
  if (service.isRunning) throw new Error(`the pass did not finish in ${maxTicks} ticks`);
  return ticks;
}

/** A repair source holding copies by bucket/key/versionId; counts its fetches. */
export class FakeRepairSource implements RepairSource {
  readonly copies = new Map<string, Buffer>();
  fetches = 0;
  /** Chunk size the copy is streamed in (odd on purpose, so pieces straddle chunks). */
  chunkSize = 7777;
  /** Called before a copy is returned (to change the store meanwhile). */
  beforeReturn: (() => Promise<void> | void) | undefined;

  set({ bucket, key, versionId }: { bucket: string; key: string; versionId: string }, data: Buffer): void {
    this.copies.set(`${bucket}/${key}/${versionId}`, data);
  }

  async fetch(version: {
    bucket: string;
    key: string;
    versionId: string;
  }): Promise<{ stream: Readable; size: number } | undefined> {
    this.fetches += 1;
    const data = this.copies.get(`${version.bucket}/${version.key}/${version.versionId}`);
    if (data === undefined) return undefined;
    await this.beforeReturn?.();
    const chunks: Buffer[] = [];
    for (let at = 0; at < data.length; at += this.chunkSize) chunks.push(data.subarray(at, at + this.chunkSize));
    return { stream: Readable.from(chunks), size: data.length };
  }
}
