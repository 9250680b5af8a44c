// docs/webhooks.md's receiver, run as written: its code block is extracted, started as its own process, and fed
// by a real Store. It must accept Store's signed deliveries once each and refuse a tampered one.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { sdkClient, uniqueBucket } from '../helpers/clients.js';
import { startInProcess, type InProcessApp } from '../helpers/in-process.js';
import { REPO_ROOT, tempDir } from '../helpers/server.js';

const SECRET = randomBytes(36).toString('base64url');

function receiverSource(): string {
  const doc = readFileSync(join(REPO_ROOT, 'docs/webhooks.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## A receiver'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('no js block under "## A receiver" in docs/webhooks.md');
  return match[1] as string;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}

describe('the documented receiver', () => {
  let child: ChildProcess | undefined;
  let store: InProcessApp | undefined;
  afterAll(async () => {
    child?.kill();
    await store?.stop();
  });

  it('verifies and accepts real deliveries once, and refuses a tampered body', async () => {
    const file = join(tempDir('receiver-'), 'receiver.mjs');
    writeFileSync(file, receiverSource());
    const port = await freePort();
    child = spawn(process.execPath, [file], {
      env: { PATH: process.env['PATH'] ?? '', WEBHOOK_SECRET: SECRET, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const url = `http://127.0.0.1:${port}/hook`;
    for (let i = 0; i < 100; i++) {
      const up = await fetch(url, { method: 'POST' }).then(
        (r) => r.status,
        () => 0,
      );
      if (up === 401) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    store = await startInProcess({ WEBHOOK_URL: url, WEBHOOK_SECRET: SECRET, WEBHOOK_POLL_MS: '200' });
    const s3 = sdkClient(store.server);
    const bucket = uniqueBucket('docs');
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'from/the/docs.txt', Body: 'hello' }));
    s3.destroy();
    const deadline = Date.now() + 10_000;
    while (!output.includes('accepted') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(output).toMatch(new RegExp(`^accepted [0-9a-f-]{36} object\\.created ${bucket} from/the/docs\\.txt$`, 'm'));

    // A replay of a valid signature over other bytes, and a stale timestamp, are refused.
    const body = '{"type":"object.deleted"}';
    const now = Math.floor(Date.now() / 1000);
    const { signatureHeader } = await import('../../src/services/events/webhook-signature.js');
    const send = (signature: string, payload: string) =>
      fetch(url, {
        method: 'POST',
        body: payload,
        headers: { 'x-store-signature': signature, 'x-store-delivery': 'x', 'content-type': 'application/json' },
      }).then((r) => r.status);
    expect(await send(signatureHeader(SECRET, now, body), `${body} `)).toBe(401);
    expect(await send(signatureHeader(SECRET, now - 301, body), body)).toBe(401);
    expect(await send(signatureHeader(SECRET, now, body), body)).toBe(204);
  });
});
