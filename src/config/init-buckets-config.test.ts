import { describe, expect, it } from 'vitest';
import { configProblems } from '../../test/helpers/config-env.js';
import { initBuckets } from './init-buckets-config.js';

describe('STORE_INIT_BUCKETS', () => {
  it('reads names with optional :versioned or :locked (locked implies versioned), ignoring spaces and empty entries', () => {
    expect(initBuckets({ STORE_INIT_BUCKETS: ' a1 , b2:versioned,,c3:locked, d4:versioned:locked ,' })).toEqual([
      { name: 'a1', versioned: false, locked: false },
      { name: 'b2', versioned: true, locked: false },
      { name: 'c3', versioned: true, locked: true },
      { name: 'd4', versioned: true, locked: true },
    ]);
    expect(initBuckets({ STORE_INIT_BUCKETS: '' })).toEqual([]);
    expect(configProblems({ STORE_INIT_BUCKETS: 'photos,logs:versioned,audit:locked' })).toEqual([]);
  });

  it('refuses an unknown or repeated option, an entry without a name, and a bucket listed twice, naming each', () => {
    expect(configProblems({ STORE_INIT_BUCKETS: 'photos:encrypted' })).toEqual([
      "STORE_INIT_BUCKETS: 'photos:encrypted' has an unknown option 'encrypted' (only :versioned and :locked)",
    ]);
    expect(configProblems({ STORE_INIT_BUCKETS: 'a1:locked:locked' })).toEqual([
      "STORE_INIT_BUCKETS: 'a1:locked:locked' repeats an option",
    ]);
    expect(configProblems({ STORE_INIT_BUCKETS: ':versioned' })).toEqual([
      "STORE_INIT_BUCKETS has an entry without a bucket name: ':versioned'",
    ]);
    expect(configProblems({ STORE_INIT_BUCKETS: 'logs,logs:versioned' })).toEqual([
      "STORE_INIT_BUCKETS lists the bucket 'logs' twice",
    ]);
  });
});
