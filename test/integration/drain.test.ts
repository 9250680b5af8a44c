// SIGTERM drain: readiness turns 503 while an in-flight upload finishes and commits, the process exits 0;
// an upload that never finishes does not hold the process past SHUTDOWN_DRAIN_MS.

import { request, Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { sha256Hex, signedHeaders } from '../helpers/signed-http.js';
import type { RunningServer } from '../helpers/server.js';
import { startStore } from '../helpers/store.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface SlowPut {
  req: ClientRequest;
  /** Resolves with the status and body once the server answers (rejects if the connection dies first). */
  response: Promise<{ status: number; body: string }>;
}

/** Starts a signed PUT whose body is written by the caller. */
function startPut(server: RunningServer, { bucket, key }: { bucket: string; key: string }, body: Buffer): SlowPut {
  const path = `/${bucket}/${key}`;
  const headers = signedHeaders(server, {
    method: 'PUT',
    path,
    headers: { 'content-length': String(body.length) },
    sign: { payloadHash: sha256Hex(body) },
  });
  const req = request({ host: '127.0.0.1', port: server.port, method: 'PUT', path, headers, agent: false });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  return { req, response };
}

function exitOf(server: RunningServer): Promise<number | null> {
  const child = server.process;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

describe('SIGTERM drain', () => {
  it('answers readiness 503 while an in-flight upload completes, commits it, and exits 0', async () => {
    const store = await startStore();
    const server = store.server;
    const bucket = await store.bucket();
    const body = randomBytes(1024 * 1024);
    const put = startPut(server, { bucket, key: 'slow.bin' }, body);
    const pieces = 10;
    const step = body.length / pieces;
    put.req.write(body.subarray(0, step));
    await sleep(200);

    const exited = exitOf(server);
    server.process.kill('SIGTERM');
    // keep the body coming over ~2 s, probing readiness while the drain waits for it
    const probes: Array<{ status: number; body: unknown }> = [];
    for (let i = 1; i < pieces; i++) {
      const res = await fetch(`${server.url}/api/admin/ready`);
      probes.push({ status: res.status, body: await res.json() });
      put.req.write(body.subarray(i * step, (i + 1) * step));
      await sleep(200);
    }
    put.req.end();

    const answer = await put.response;
    expect(answer.status, answer.body).toBe(200);
    expect(probes.length).toBeGreaterThan(0);
    for (const probe of probes) expect(probe).toEqual({ status: 503, body: { status: 'draining' } });
    expect(await exited).toBe(0);
    expect(server.output()).toMatch(/"drained":true/);

    await store.restart();
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'slow.bin' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
  });

  it('exits promptly with nothing in flight, even with an idle keep-alive connection open', async () => {
    const { server } = await startStore();
    const agent = new Agent({ keepAlive: true });
    try {
      await new Promise<void>((resolve, reject) => {
        request({ host: '127.0.0.1', port: server.port, path: '/api/admin/health', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        })
          .on('error', reject)
          .end();
      });
      const started = Date.now();
      const exited = exitOf(server);
      server.process.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      agent.destroy();
    }
  });

  it('gives up on an upload that never finishes at SHUTDOWN_DRAIN_MS and stores nothing of it', async () => {
    const store = await startStore({ env: { SHUTDOWN_DRAIN_MS: '1000' } });
    const server = store.server;
    const bucket = await store.bucket();
    const body = randomBytes(512 * 1024);
    const put = startPut(server, { bucket, key: 'stalled.bin' }, body);
    put.response.catch(() => undefined); // the server cuts the connection at the deadline
    put.req.on('error', () => undefined);
    put.req.write(body.subarray(0, 100_000));
    await sleep(300);

    const started = Date.now();
    const exited = exitOf(server);
    server.process.kill('SIGTERM');
    const code = await exited;
    const elapsed = Date.now() - started;
    expect(code).toBe(0);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(2000);
    expect(server.output()).toMatch(/"drained":false/);
    expect(server.output()).not.toMatch(/"level":"(error|fatal)"/);
    put.req.destroy();

    await store.restart();
    await expect(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'stalled.bin' }))).rejects.toMatchObject({
      name: 'NotFound',
    });
    expect(readdirSync(join(store.dataDir, 'tmp'))).toEqual([]);
  });
});
