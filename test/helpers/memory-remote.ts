// An in-memory replication target (RemoteStore) for service tests; the integration tests use real targets.

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  RemoteError,
  type RemoteListPage,
  type RemotePutInput,
  type RemoteStore,
} from '../../src/services/replication/remote-store.js';

/**
 * An in-memory target; `failWith` makes every call throw, `failListing` the listings of one prefix; `onPut` runs during
 * a put (before it lands).
 */
export class MemoryRemote implements RemoteStore {
  readonly objects = new Map<
    string,
    { body: Buffer; tags: { key: string; value: string }[]; metadata: Record<string, string> }
  >();
  puts = 0;
  failWith: RemoteError | undefined;
  /** Listings of this prefix fail (one bucket's walk, in a reconcile of several). */
  failListing: string | undefined;
  onPut: (() => void) | undefined;

  private check(): void {
    if (this.failWith) throw this.failWith;
  }
  async put(input: RemotePutInput): Promise<void> {
    this.check();
    this.puts++;
    const chunks: Buffer[] = [];
    for await (const c of input.body) chunks.push(c as Buffer);
    this.onPut?.();
    this.objects.set(input.key, {
      body: Buffer.concat(chunks),
      tags: [...(input.tags ?? [])],
      metadata: input.metadata ?? {},
    });
  }
  async get(key: string): Promise<Readable> {
    this.check();
    const o = this.objects.get(key);
    if (!o) throw new RemoteError('not-found', 404);
    return Readable.from([o.body]);
  }
  async head(key: string): Promise<{ size: number; etag: string; metadata: Record<string, string> } | undefined> {
    this.check();
    const o = this.objects.get(key);
    return o && { size: o.body.length, etag: '', metadata: o.metadata };
  }
  async delete(key: string): Promise<void> {
    this.check();
    this.objects.delete(key);
  }
  async putTags(key: string, tags: readonly { key: string; value: string }[]): Promise<void> {
    this.check();
    const o = this.objects.get(key);
    if (!o) throw new RemoteError('not-found', 404);
    o.tags = [...tags];
  }
  async list(opts: { prefix: string; startAfter?: string; token?: string; limit: number }): Promise<RemoteListPage> {
    this.check();
    if (opts.prefix === this.failListing) throw new RemoteError('server-error', 500);
    const after = opts.token ?? opts.startAfter ?? '';
    const keys = [...this.objects.keys()]
      .filter((k) => k.startsWith(opts.prefix) && Buffer.compare(Buffer.from(k), Buffer.from(after)) > 0)
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const page = keys.slice(0, opts.limit);
    return {
      items: page.map((key) => {
        const body = (this.objects.get(key) as { body: Buffer }).body;
        return { key, size: body.length, etag: createHash('md5').update(body).digest('hex') };
      }),
      nextToken: keys.length > opts.limit ? page.at(-1) : undefined,
    };
  }
  async presignGet(key: string): Promise<string> {
    return `http://remote.invalid/${key}`;
  }
  async checkBucket(): Promise<'ok'> {
    return 'ok';
  }
  close(): void {}
}
