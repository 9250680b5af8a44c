import { describe, expect, it } from 'vitest';
import { isMultipart, MAX_PARTS, MiB, partSize, planParts, SINGLE_PUT_MAX } from './upload-plan';

describe('upload plan', () => {
  it('sends files up to 16 MiB in one PUT', () => {
    expect(isMultipart(SINGLE_PUT_MAX)).toBe(false);
    expect(isMultipart(SINGLE_PUT_MAX + 1)).toBe(true);
  });

  it('cuts 8 MiB parts covering the file exactly, the last one shorter', () => {
    const size = 21 * MiB + 7;
    const parts = planParts(size);
    expect(parts.map((p) => p.partNumber)).toEqual([1, 2, 3]);
    expect(parts.map((p) => p.end - p.start)).toEqual([8 * MiB, 8 * MiB, 5 * MiB + 7]);
    expect(parts[0]?.start).toBe(0);
    expect(parts[2]?.end).toBe(size);
  });

  it('raises the part size so that a huge file fits in 10,000 parts', () => {
    const size = 200 * 1024 * MiB; // 200 GiB
    expect(partSize(size) % MiB).toBe(0);
    expect(Math.ceil(size / partSize(size))).toBeLessThanOrEqual(MAX_PARTS);
    expect(planParts(size).length).toBeLessThanOrEqual(MAX_PARTS);
  });

  it('plans one empty part for an empty file', () => {
    expect(planParts(0)).toEqual([{ partNumber: 1, start: 0, end: 0 }]);
  });
});
