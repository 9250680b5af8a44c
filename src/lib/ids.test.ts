import { describe, expect, it } from 'vitest';
import { isUuidShaped, uuidv7 } from './ids.js';

describe('uuidv7', () => {
  it('has the v7 shape, version and variant bits', () => {
    const id = uuidv7();
    expect(isUuidShaped(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('is strictly increasing within one millisecond and encodes the time', () => {
    const now = 1_700_000_000_000;
    const ids = Array.from({ length: 5000 }, () => uuidv7(now));
    const sorted = [...ids].sort();
    expect(new Set(ids).size).toBe(ids.length);
    expect(sorted).toEqual(ids);
    expect(parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThanOrEqual(now);
  });

  it('rejects ids that are not UUID-shaped', () => {
    expect(isUuidShaped('not-a-uuid')).toBe(false);
    expect(isUuidShaped('0190c6d2-7a6f-7c4e-9d1a-2b3c4d5e6f7g')).toBe(false);
    expect(isUuidShaped('0190c6d2-7a6f-7c4e-9d1a-2b3c4d5e6f70\n')).toBe(false);
  });
});
