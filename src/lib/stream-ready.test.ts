// firstBytes waits for a stream's first bytes without consuming them: piping afterwards yields every byte, in order,
// and a stream that fails before its first bytes rejects instead.

import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { firstBytes } from './stream-ready.js';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await pipeline(
    stream,
    new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(chunks);
}

/** A stream that yields its chunks one macrotask apart, as file reads do. */
function slow(chunks: Buffer[], failAfter?: number): Readable {
  let i = 0;
  return new Readable({
    read() {
      setImmediate(() => {
        if (failAfter !== undefined && i === failAfter) this.destroy(new Error('boom'));
        else if (i < chunks.length) this.push(chunks[i++]);
        else this.push(null);
      });
    },
  });
}

describe('firstBytes', () => {
  it('leaves every byte in the stream for the pipe that follows', async () => {
    const chunks = Array.from({ length: 50 }, (_, n) => Buffer.alloc(10_000, n));
    const stream = slow(chunks);
    await firstBytes(stream);
    expect((await collect(stream)).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('works on a stream that has all its data at once and on one that already has data buffered', async () => {
    const all = Readable.from([Buffer.from('abc'), Buffer.from('def')]);
    await firstBytes(all);
    expect((await collect(all)).toString()).toBe('abcdef');
    const buffered = new PassThrough();
    buffered.end('xyz');
    await firstBytes(buffered);
    await firstBytes(buffered);
    expect((await collect(buffered)).toString()).toBe('xyz');
  });

  it('rejects with the error of a stream that fails before its first bytes', async () => {
    await expect(firstBytes(slow([Buffer.from('never')], 0))).rejects.toThrow('boom');
    const failed = new PassThrough();
    failed.on('error', () => undefined); // the error was seen by whoever destroyed it
    failed.destroy(new Error('already'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(firstBytes(failed)).rejects.toThrow('already');
  });

  it('resolves for an empty stream, and rejects for one destroyed without data', async () => {
    const empty = Readable.from([]);
    await firstBytes(empty);
    expect((await collect(empty)).length).toBe(0);
    const closed = new PassThrough();
    const waiting = firstBytes(closed);
    closed.destroy();
    await expect(waiting).rejects.toThrow(/closed before/);
  });

  it('a failure after the first bytes reaches the pipe, which fails', async () => {
    const stream = slow([Buffer.from('a'), Buffer.from('b'), Buffer.from('c')], 2);
    await firstBytes(stream);
    await expect(collect(stream)).rejects.toThrow('boom');
  });
});
