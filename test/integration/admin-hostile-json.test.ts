// Admin JSON bodies built to break the server rather than to mean anything: nested 100,000 deep (which JSON.parse
// takes and the first JSON.stringify of the body overflowed: a 500 for bucket policies and key permissions),
// prototype-poisoning keys, malformed JSON. Each is a 400 envelope and the server goes on serving.

import { beforeAll, describe, expect, it } from 'vitest';
import { useStore } from '../helpers/store.js';

const store = useStore();

beforeAll(async () => {
  const created = await send('POST', '/buckets', JSON.stringify({ name: 'deep' }));
  expect(created.status).toBe(201);
});

async function send(
  method: string,
  path: string,
  body: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${store.server.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${await store.admin()}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('hostile admin JSON bodies', () => {
  it.each([
    ['PUT', '/buckets/deep/policy', `{"Version":"2012-10-17","Statement":${deep(100_000)}}`],
    ['POST', '/keys', `{"name":"k","permissions":{"policy":{"Statement":${deep(100_000)}}}}`],
    ['PUT', '/buckets/deep/lifecycle', `{"rules":${deep(100_000)}}`],
    ['POST', '/buckets', `{"name":"x","region":${deep(100)}}`],
  ])('%s %s nested deeper than any document is a 400, not a 500', async (method, path, body) => {
    const res = await send(method, path, body);
    expect(res).toMatchObject({ status: 400, body: { error: 'ValidationError', statusCode: 400 } });
  });

  it('prototype-poisoning keys and malformed JSON are 400s; the server still answers', async () => {
    expect((await send('PUT', '/buckets/deep/tagging', '{"__proto__":{"tags":[]},"tags":[]}')).status).toBe(400);
    expect((await send('PUT', '/buckets/deep/tagging', '{"tags":[')).status).toBe(400);
    const ok = await send('PUT', '/buckets/deep/tagging', '{"tags":[{"key":"a","value":"b"}]}');
    expect(ok.status).toBe(200);
  });
});
