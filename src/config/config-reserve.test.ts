// loadConfig for STORE_MIN_FREE_BYTES, the data volume's free-space reserve (services/objects/write-reserve.ts).

import { describe, expect, it } from 'vitest';
import { configEnv as env, configProblems as problems } from '../../test/helpers/config-env.js';
import { loadConfig } from './config.js';

describe('STORE_MIN_FREE_BYTES', () => {
  it('defaults to 64 MiB and accepts 0 (off) and large values', () => {
    expect(loadConfig(env()).STORE_MIN_FREE_BYTES).toBe(64 * 1024 * 1024);
    expect(loadConfig(env({ STORE_MIN_FREE_BYTES: '0' })).STORE_MIN_FREE_BYTES).toBe(0);
    expect(loadConfig(env({ STORE_MIN_FREE_BYTES: '10737418240' })).STORE_MIN_FREE_BYTES).toBe(10 * 1024 ** 3);
  });

  it.each(['-1', '1.5', '64MiB'])('refuses STORE_MIN_FREE_BYTES=%j', (value) => {
    expect(problems({ STORE_MIN_FREE_BYTES: value })).toEqual([expect.stringMatching(/^STORE_MIN_FREE_BYTES/)]);
  });
});
