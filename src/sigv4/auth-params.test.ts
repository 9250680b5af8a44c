import { describe, expect, it } from 'vitest';
import { parseAmzDate } from './auth-params.js';

describe('parseAmzDate', () => {
  it('reads ISO 8601 basic timestamps and refuses anything else, the same each time it is asked', () => {
    const inputs = [
      '20261122T193000Z',
      '20261122T193000Z',
      '20260230T000000Z',
      '20261122T193001Z',
      'garbage',
      '20261122T193000Z',
      '20261122T246000Z',
    ];
    const expected = [
      Date.UTC(2026, 10, 22, 19, 30, 0),
      Date.UTC(2026, 10, 22, 19, 30, 0),
      undefined,
      Date.UTC(2026, 10, 22, 19, 30, 1),
      undefined,
      Date.UTC(2026, 10, 22, 19, 30, 0),
      undefined,
    ];
    expect(inputs.map(parseAmzDate)).toEqual(expected);
    expect([...inputs].reverse().map(parseAmzDate)).toEqual([...expected].reverse());
  });
});
