import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lines, SliceReader, StreamShapeError } from './stream-bytes.js';

const chunks = (...parts: string[]): Readable => Readable.from(parts.map((p) => Buffer.from(p)));
async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('lines', () => {
  it('splits across chunk boundaries and keeps a last line without a newline', async () => {
    expect(await all(lines(chunks('ab', 'c\nd', 'e\n\nf'), 100))).toEqual(['abc', 'de', '', 'f']);
  });
  it('refuses a line longer than the limit without gathering it', async () => {
    await expect(all(lines(chunks('x'.repeat(50), 'y'.repeat(60)), 100))).rejects.toBeInstanceOf(StreamShapeError);
    await expect(all(lines(chunks(`${'x'.repeat(101)}\n`), 100))).rejects.toBeInstanceOf(StreamShapeError);
  });
});

describe('SliceReader', () => {
  it('reads consecutive exact slices across chunks', async () => {
    const reader = new SliceReader(chunks('abc', 'defg', 'h'));
    expect(Buffer.concat(await all(reader.slice(2))).toString()).toBe('ab');
    expect(Buffer.concat(await all(reader.slice(5))).toString()).toBe('cdefg');
    expect(await reader.atEnd()).toBe(false);
    expect(Buffer.concat(await all(reader.slice(1))).toString()).toBe('h');
    expect(await reader.atEnd()).toBe(true);
  });
  it('fails a slice the stream cannot fill', async () => {
    const reader = new SliceReader(chunks('abc'));
    await expect(all(reader.slice(4))).rejects.toBeInstanceOf(StreamShapeError);
  });
});
