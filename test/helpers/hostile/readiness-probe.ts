// The readiness probe of the hostile harness: GET /api/admin/ready every ~150 ms on a keep-alive connection of its
// own, from a worker thread, so that the harness's own busy moments (hashing, signing, filling the disk) do not count
// against the server. Every answer must be a 200 within 1 s.

import { Worker } from 'node:worker_threads';
import { quantile } from '../latency-probe.js';

/** The worker's code: plain JavaScript, run with `eval`. */
const PROBE_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stopped = false;
parentPort.on('message', () => { stopped = true; });
function once() {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.get({ host: '127.0.0.1', port: workerData.port, path: '/api/admin/ready', agent, timeout: workerData.limitMs * 5 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - started, status: res.statusCode }));
      res.on('error', (err) => resolve({ ms: performance.now() - started, status: 0, error: String(err) }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', (err) => resolve({ ms: performance.now() - started, status: 0, error: String(err) }));
  });
}
(async () => {
  while (!stopped) {
    const sample = await once();
    parentPort.postMessage(sample);
    await new Promise((r) => setTimeout(r, Math.max(0, workerData.everyMs - sample.ms)));
  }
  agent.destroy();
  parentPort.postMessage({ done: true });
})();
`;

interface Sample {
  ms: number;
  status: number;
  error?: string;
}

export interface ProbeReport {
  count: number;
  p99: number;
  max: number;
  /** Answers that were late (over the limit), not 200, or missing. */
  failures: string[];
}

/** A running probe; stop() ends it and reports. */
export class ReadinessProbe {
  private readonly samples: Sample[] = [];
  private readonly worker: Worker;
  private readonly done: Promise<void>;

  constructor(private readonly opts: { port: number; everyMs?: number; limitMs?: number }) {
    this.worker = new Worker(PROBE_SOURCE, {
      eval: true,
      workerData: { port: opts.port, everyMs: opts.everyMs ?? 150, limitMs: opts.limitMs ?? 1000 },
    });
    this.done = new Promise((resolve) => {
      this.worker.on('message', (m: Sample | { done: true }) => {
        if ('done' in m) resolve();
        else this.samples.push(m);
      });
      this.worker.on('exit', () => resolve());
    });
  }

  /** Samples so far. */
  get count(): number {
    return this.samples.length;
  }

  async stop(): Promise<ProbeReport> {
    this.worker.postMessage('stop');
    await this.done;
    await this.worker.terminate();
    const limit = this.opts.limitMs ?? 1000;
    const times = this.samples.map((s) => s.ms);
    return {
      count: this.samples.length,
      p99: quantile(times, 0.99),
      max: Math.max(0, ...times),
      failures: this.samples
        .filter((s) => s.status !== 200 || s.ms >= limit)
        .map((s) => `${s.status === 0 ? `no answer (${s.error})` : `status ${s.status}`} after ${s.ms.toFixed(0)} ms`),
    };
  }
}
