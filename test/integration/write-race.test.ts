// A write that loses a race inside its metadata transaction must not leave its blob behind.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INLINE_MAX_BYTES } from '../../src/services/objects/body-ingest.js';
import { openServices, type ServiceFixture } from '../helpers/services.js';

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2026-01-01T00:00:00Z');
  fx.buckets.create('race');
});

afterEach(() => fx.close());

function blobFiles(): string[] {
  const root = join(fx.dir, 'blobs');
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

function body(bytes: Buffer) {
  return { source: Readable.from([bytes]), size: bytes.length };
}

const inlineRows = (): number => fx.meta.db.prepare('SELECT COUNT(*) FROM inline_blobs').pluck().get() as number;

describe('conditional writes racing for one key', () => {
  // Small bodies are inline blobs (sealed in the database), larger ones are files: the loser leaves neither behind.
  it.each([
    { kind: 'inline', size: 5, files: 0, inline: 1 },
    { kind: 'file', size: INLINE_MAX_BYTES + 1, files: 1, inline: 0 },
  ])(
    'keeps exactly one object and one $kind blob when two If-None-Match: * PUTs race',
    async ({ size, files, inline }) => {
      const results = await Promise.allSettled(
        [1, 2].map((fill) =>
          fx.objects.put({
            bucket: 'race',
            key: 'k',
            body: body(Buffer.alloc(size, fill)),
            headers: {},
            userMeta: {},
            conditions: { ifNoneMatch: '*' },
          }),
        ),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]?.reason).toMatchObject({ code: 'PreconditionFailed' });
      // The loser's blob was committed to disk (or sealed) before its transaction saw the winner: it must be gone.
      expect(blobFiles()).toHaveLength(files);
      expect(inlineRows()).toBe(inline);
    },
  );
});
