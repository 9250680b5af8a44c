// A write that loses a race inside its metadata transaction must not leave its blob behind.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

function body(text: string) {
  const bytes = Buffer.from(text);
  return { source: Readable.from([bytes]), size: bytes.length };
}

describe('conditional writes racing for one key', () => {
  it('keeps exactly one object and one blob when two If-None-Match: * PUTs race', async () => {
    const results = await Promise.allSettled(
      ['first', 'second'].map((text) =>
        fx.objects.put({ bucket: 'race', key: 'k', body: body(text), headers: {}, userMeta: {}, conditions: { ifNoneMatch: '*' } }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.reason).toMatchObject({ code: 'PreconditionFailed' });
    // The loser's blob was committed to disk before its transaction saw the winner: it must be gone, not orphaned.
    expect(blobFiles()).toHaveLength(1);
  });
});
