// A small, bounded S3 workload that times every request: `count` signed PUTs of small bodies, then a GET of each
// (checked byte for byte), `concurrency` at a time over keep-alive connections. For the fault suites' "local
// latency is unaffected" figures: the same probe with and without a fault, on the same machine, then compared.

import { Agent, request } from 'node:http';
import type { RunningServer } from './server.js';
import { sha256Hex, signedHeaders } from './signed-http.js';

export interface ProbeResult {
  /** Milliseconds per request, PUTs and GETs together. */
  latencies: number[];
  /** The keys written (every PUT answered 200 and every GET returned its bytes). */
  keys: string[];
}

/** The q-quantile (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

function send(
  server: RunningServer,
  agent: Agent,
  { method, path, body }: { method: 'PUT' | 'GET'; path: string; body?: Buffer },
): Promise<{ status: number; body: Buffer }> {
  const headers = signedHeaders(server, {
    method,
    path,
    headers: body ? { 'content-length': String(body.length) } : {},
    sign: { payloadHash: sha256Hex(body ?? '') },
  });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * PUTs `count` objects `<prefix><n>` of 1-4 KiB into `bucket`, then GETs each; rejects on any unexpected answer.
 * Latencies are measured per request from send to the last response byte.
 */
export async function latencyProbe(
  server: RunningServer,
  opts: { bucket: string; prefix: string; count: number; concurrency?: number },
): Promise<ProbeResult> {
  const concurrency = opts.concurrency ?? 4;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  const keys = Array.from({ length: opts.count }, (_, i) => `${opts.prefix}${String(i).padStart(4, '0')}`);
  const bodyOf = (key: string): Buffer =>
    Buffer.alloc(1024 + (parseInt(sha256Hex(key).slice(0, 4), 16) % 3072), `${key} `);
  const timed = async (method: 'PUT' | 'GET', key: string): Promise<void> => {
    const path = `/${opts.bucket}/${encodeURIComponent(key).replace(/%2F/g, '/')}`;
    const expected = bodyOf(key);
    const t0 = performance.now();
    const res = await send(server, agent, { method, path, body: method === 'PUT' ? expected : undefined });
    latencies.push(performance.now() - t0);
    if (res.status !== 200)
      throw new Error(`${method} ${key}: HTTP ${res.status} ${res.body.toString().slice(0, 200)}`);
    if (method === 'GET' && !res.body.equals(expected)) throw new Error(`GET ${key}: wrong bytes`);
  };
  const run = async (method: 'PUT' | 'GET'): Promise<void> => {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < keys.length; i = next++) await timed(method, keys[i] as string);
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
  try {
    await run('PUT');
    await run('GET');
  } finally {
    agent.destroy();
  }
  return { latencies, keys };
}
