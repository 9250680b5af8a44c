// The worker registry: only enabled workers start, a worker may run several loops, stop waits for every loop, and
// the status says which are enabled and which run.

import { describe, expect, it } from 'vitest';
import type { RunningLoop } from '../workers/runner.js';
import { WORKERS, WorkerSet, type WorkerDeps, type WorkerSpec } from './workers.js';

/** A loop that records when it has stopped. */
function loop(log: string[], name: string): RunningLoop {
  return {
    stop: async () => {
      await Promise.resolve();
      log.push(`stopped ${name}`);
    },
  };
}

const deps = {} as WorkerDeps; // the fakes below read nothing from it

describe('WorkerSet', () => {
  it('starts only the enabled workers, stops every loop of each, and reports both', async () => {
    const log: string[] = [];
    const specs: WorkerSpec[] = [
      {
        name: 'a',
        enabled: () => true,
        start: () => {
          log.push('started a');
          return loop(log, 'a');
        },
      },
      {
        name: 'off',
        enabled: () => false,
        start: () => {
          log.push('started off');
          return loop(log, 'off');
        },
      },
      {
        name: 'pair',
        enabled: () => true,
        start: () => {
          log.push('started pair');
          return [loop(log, 'p1'), loop(log, 'p2')];
        },
      },
    ];
    const set = new WorkerSet(specs);
    expect(set.status()).toEqual([
      { name: 'a', enabled: false, running: false },
      { name: 'off', enabled: false, running: false },
      { name: 'pair', enabled: false, running: false },
    ]);
    set.start(deps);
    expect(log).toEqual(['started a', 'started pair']);
    expect(set.status()).toEqual([
      { name: 'a', enabled: true, running: true },
      { name: 'off', enabled: false, running: false },
      { name: 'pair', enabled: true, running: true },
    ]);
    await set.stop();
    expect(log.slice(2).sort()).toEqual(['stopped a', 'stopped p1', 'stopped p2']);
    expect(set.status().map((s) => s.running)).toEqual([false, false, false]);
  });

  it('names each production worker once', () => {
    const names = WORKERS.map((w) => w.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
