// Answers on one connection keep the order of their requests (RFC 9112 9.3.2): bytes that cannot be parsed, sent
// behind a request still being answered (garbage pipelined after a PUT), never get an answer that overtakes the PUT's.

import { connect } from 'node:net';
import { CreateBucketCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const store = useStore();

beforeAll(async () => {
  await store.s3.send(new CreateBucketCommand({ Bucket: 'order' }));
});

/** Writes `bytes` on a fresh connection and collects everything the server sends until it closes the connection. */
function exchange(bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(store.server.port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

describe('pipelined garbage', () => {
  it('is not answered ahead of the PUT it follows: the PUT gets its 200, then the connection closes', async () => {
    for (let i = 0; i < 5; i++) {
      const body = Buffer.from(`object ${i}`);
      const path = `/order/k${i}`;
      const headers = signedHeaders(store.server, {
        method: 'PUT',
        path,
        headers: { 'content-length': String(body.length) },
        sign: { payloadHash: 'UNSIGNED-PAYLOAD' },
      });
      const head = `PUT ${path} HTTP/1.1\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')}\r\n\r\n`;
      const answers = await exchange(
        Buffer.concat([Buffer.from(head), body, Buffer.from('\x01\x02 NOT HTTP AT ALL\r\n\r\n')]),
      );
      expect(answers.startsWith('HTTP/1.1 200 '), answers.slice(0, 200)).toBe(true);
      expect(answers).not.toContain('HTTP/1.1 400');
    }
    const got = await store.s3.send(new GetObjectCommand({ Bucket: 'order', Key: 'k4' }));
    expect(await got.Body?.transformToString()).toBe('object 4');
  });

  it('alone on a connection, is still answered 400 with a request id', async () => {
    const answer = await exchange(Buffer.from('\x01\x02 NOT HTTP AT ALL\r\n\r\n'));
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/X-Amz-Request-Id: [0-9a-f-]{36}/i);
  });
});
