// Group commit for SQLite: transactions commit to the WAL without an fsync (synchronous=NORMAL), and a durability
// barrier fdatasyncs the WAL file off the event loop, once for every commit made before it was asked for.
// Together this is what synchronous=FULL guarantees (a commit is on disk before anyone is told it happened), but
// concurrent writers share one fsync and the event loop never blocks on the disk.

import { open, type FileHandle } from 'node:fs/promises';

export interface WalSyncOptions {
  /** How the WAL is flushed (tests inject failures); default: fdatasync. */
  datasync?: (handle: FileHandle) => Promise<void>;
  /**
   * Told once, when an fsync of the WAL fails. From then on no commit can be acknowledged (every barrier rejects):
   * Linux reports a writeback error to one fsync only and may drop the pages it could not write, so a later fsync
   * that succeeds would vouch for a WAL with a hole in it, and every commit after the hole is lost on recovery
   * (SQLite's WAL frames are checksummed in a chain). The process must restart and recover from what is on disk.
   */
  onFailure?: (err: unknown) => void;
}

export class WalSync {
  private synced = 0;
  private fsyncs = 0;
  private running: Promise<void> | undefined;
  private handle: FileHandle | undefined;
  /** The first fsync failure: once set, nothing is durable any more (see onFailure). */
  private failure: { err: unknown } | undefined;

  /**
   * @param changes the connection's running count of changed rows (SQLite's total_changes()): it moves with every
   *   committed write, inside a transaction or not, so no write can be forgotten by its caller.
   */
  constructor(
    private readonly walPath: string,
    private readonly changes: () => number,
    private readonly opts: WalSyncOptions = {},
  ) {}

  /** How many WAL fsyncs have completed (group commit shares one among many commits). */
  get syncCount(): number {
    return this.fsyncs;
  }

  /** True when some commit is not yet covered by a completed fsync. */
  get isDirty(): boolean {
    return this.synced < this.changes();
  }

  /**
   * Resolves once every commit made before this call is durable. Callers arriving while an fsync runs share the
   * next one. Rejects if the fsync fails (the commits must then not be acknowledged), and from then on whenever a
   * commit waits for it (WalSyncOptions.onFailure says why).
   */
  async barrier(): Promise<void> {
    const target = this.changes();
    while (this.synced < target) {
      if (this.failure) throw this.failure.err;
      this.running ??= this.syncOnce().finally(() => {
        this.running = undefined;
      });
      await this.running;
    }
  }

  private async syncOnce(): Promise<void> {
    const upTo = this.changes();
    // The WAL is never replaced while the database connection is open, so one handle serves for good.
    this.handle ??= await open(this.walPath, 'r+');
    // fdatasync also persists the file size, which is all a reader of appended WAL frames needs.
    try {
      await (this.opts.datasync ? this.opts.datasync(this.handle) : this.handle.datasync());
    } catch (err) {
      if (!this.failure) {
        this.failure = { err };
        this.opts.onFailure?.(err);
      }
      throw err;
    }
    this.fsyncs++;
    this.synced = Math.max(this.synced, upTo);
  }

  async close(): Promise<void> {
    await this.running?.catch(() => undefined);
    await this.handle?.close();
    this.handle = undefined;
  }
}
