// Many small signed PUTs over keep-alive connections, `concurrency` at a time: a write burst without the AWS SDK's
// per-request cost, so thousands of PUTs fit in a test.

import { Agent, request } from 'node:http';
import type { RunningServer } from './server.js';
import { sha256Hex, signedHeaders } from './signed-http.js';

/** PUTs `/<bucket>/<key>` for every key with a small body; rejects on the first non-200. Returns elapsed ms. */
export async function putBurst(
  server: Pick<RunningServer, 'port' | 'credentials'>,
  bucket: string,
  { keys, concurrency = 32 }: { keys: readonly string[]; concurrency?: number },
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const started = performance.now();
  let next = 0;
  const putOne = (key: string): Promise<void> => {
    const body = Buffer.from(`body of ${key}`);
    const path = `/${bucket}/${encodeURIComponent(key).replace(/%2F/g, '/')}`;
    const headers = signedHeaders(server as RunningServer, {
      method: 'PUT',
      path,
      headers: { 'content-length': String(body.length) },
      sign: { payloadHash: sha256Hex(body) },
    });
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, method: 'PUT', path, headers, agent }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`PUT ${key}: HTTP ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  };
  const worker = async (): Promise<void> => {
    while (next < keys.length) await putOne(keys[next++] as string);
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return performance.now() - started;
}
