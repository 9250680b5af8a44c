// Conditional writes (If-Match, If-None-Match: *) on PUT, and what an unconditional write costs: no lookup of the
// key's current version when neither header was sent.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { body, openServices, type ServiceFixture } from '../../../test/helpers/services.js';
import { isAppError } from '../../core/errors.js';
import type { WriteConditions } from './object-service.js';

let fx: ServiceFixture;

beforeEach(async () => {
  fx = await openServices('2026-01-01T00:00:00Z');
  fx.buckets.create('bkt');
});

afterEach(() => fx.close());

const put = (key: string, data: string, conditions?: WriteConditions) =>
  fx.objects.put({ bucket: 'bkt', key, body: body(data), headers: {}, userMeta: {}, conditions });

async function codeOf(write: Promise<unknown>): Promise<string | undefined> {
  try {
    await write;
    return undefined;
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
}

describe('conditional writes', () => {
  it('does not look up the current version of a write that carries neither condition', async () => {
    await put('k', 'one');
    const lookups = vi.spyOn(fx.meta.objects, 'findLatest');
    const row = await put('k', 'two', { ifMatch: undefined, ifNoneMatch: undefined });
    expect(lookups).not.toHaveBeenCalled();
    expect(fx.objects.open('bkt', 'k').row.etag).toBe(row.etag);
  });

  it('If-None-Match: * writes a new key and refuses an existing one with PreconditionFailed', async () => {
    expect(await codeOf(put('k', 'one', { ifNoneMatch: '*' }))).toBeUndefined();
    expect(await codeOf(put('k', 'two', { ifNoneMatch: '*' }))).toBe('PreconditionFailed');
    expect(fx.objects.open('bkt', 'k').row.size).toBe(3);
  });

  it('If-Match writes over the matching ETag only; a missing key is NoSuchKey', async () => {
    const first = await put('k', 'one');
    expect(await codeOf(put('k', 'two', { ifMatch: '"0123456789abcdef0123456789abcdef"' }))).toBe('PreconditionFailed');
    expect(await codeOf(put('k', 'three', { ifMatch: `"${first.etag}"` }))).toBeUndefined();
    expect(fx.objects.open('bkt', 'k').row.size).toBe(5);
    expect(await codeOf(put('missing', 'x', { ifMatch: `"${first.etag}"` }))).toBe('NoSuchKey');
  });

  it('If-None-Match with anything but * is NotImplemented', async () => {
    expect(await codeOf(put('k', 'one', { ifNoneMatch: '"abc"' }))).toBe('NotImplemented');
  });
});
