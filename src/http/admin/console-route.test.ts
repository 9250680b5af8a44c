import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_SECURITY_HEADERS, consoleRoutes, withBase } from './console-route.js';

const INDEX =
  '<!doctype html><html><head><base href="/admin/"><script type="module" src="./assets/index-AbCdEf12.js"></script></head><body></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;

let root: string;
let dir: string;
let empty: string;

beforeAll(() => {
  // The build sits inside a temp root, so the file "outside the build" is ours too (removed with the root).
  root = mkdtempSync(join(tmpdir(), 'console-route-'));
  dir = join(root, 'build');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'index-AbCdEf12.js'), SCRIPT);
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, '..', 'secret.txt'), 'outside the build');
  empty = mkdtempSync(join(tmpdir(), 'console-empty-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

async function app(mountPath = '', buildDir = dir): Promise<FastifyInstance> {
  const fastify = Fastify({ routerOptions: { caseSensitive: true } });
  consoleRoutes(fastify, { dir: buildDir, mountPath });
  await fastify.ready();
  return fastify;
}

function expectSecurityHeaders(headers: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) expect(headers[name], name).toBe(value);
}

describe('console route', () => {
  it('serves index.html at /admin and /admin/ with no-cache and the security headers', async () => {
    const fastify = await app();
    for (const url of ['/admin', '/admin/', '/admin/index.html']) {
      const res = await fastify.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<base href="/admin/">');
      expectSecurityHeaders(res.headers);
    }
  });

  it('answers every other console path with index.html (history fallback), dots in bucket names included', async () => {
    const fastify = await app();
    for (const url of [
      '/admin/buckets',
      '/admin/buckets/my.bucket.example',
      '/admin/buckets/a/settings?x=1',
      '/admin/keys/ABC',
    ]) {
      const res = await fastify.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('<base href="/admin/">');
    }
  });

  it('has a CSP with no inline script or style and frame denial', () => {
    const csp = CONSOLE_SECURITY_HEADERS['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(CONSOLE_SECURITY_HEADERS['x-frame-options']).toBe('DENY');
  });

  it('serves hashed assets as immutable, with their content type, gzip when accepted, and 304 on a matching ETag', async () => {
    const fastify = await app();
    const plain = await fastify.inject({ url: '/admin/assets/index-AbCdEf12.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    expectSecurityHeaders(plain.headers);

    const gz = await fastify.inject({
      url: '/admin/assets/index-AbCdEf12.js',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Number(gz.headers['content-length'])).toBeLessThan(SCRIPT.length);
    expect(gunzipSync(gz.rawPayload).toString()).toBe(SCRIPT);

    const again = await fastify.inject({
      url: '/admin/assets/index-AbCdEf12.js',
      headers: { 'if-none-match': String(plain.headers['etag']) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('serves unhashed files with no-cache', async () => {
    const res = await (await app()).inject({ url: '/admin/favicon.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('answers 404 (not index.html) for a missing asset', async () => {
    const res = await (await app()).inject({ url: '/admin/assets/index-Gone0000.js' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expectSecurityHeaders(res.headers);
  });

  it('never reads outside the build: traversal gets index.html or 404, not the file', async () => {
    const fastify = await app();
    for (const url of [
      '/admin/../secret.txt',
      '/admin/%2e%2e/secret.txt',
      '/admin/assets/..%2f..%2fsecret.txt',
      '/admin/..%5csecret.txt',
    ]) {
      const res = await fastify.inject({ url });
      expect(res.body, url).not.toContain('outside the build');
    }
  });

  it('lives under MOUNT_PATH only, with the base pointed at it', async () => {
    const fastify = await app('/storage');
    const res = await fastify.inject({ url: '/storage/admin/objects' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<base href="/storage/admin/">');
    expect((await fastify.inject({ url: '/storage/admin/assets/index-AbCdEf12.js' })).statusCode).toBe(200);
    expect((await fastify.inject({ url: '/admin/' })).statusCode).toBe(404);
  });

  it('answers 503 with a hint when the console was not built', async () => {
    const res = await (await app('', empty)).inject({ url: '/admin/' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build');
    expectSecurityHeaders(res.headers);
  });

  it('answers HEAD with the headers of GET', async () => {
    const fastify = await app();
    const res = await fastify.inject({ method: 'HEAD', url: '/admin/buckets' });
    const get = await fastify.inject({ method: 'GET', url: '/admin/buckets' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-length']).toBe(get.headers['content-length']);
    expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
    expect(res.body).toBe('');
  });

  it('withBase rewrites only the base element', () => {
    expect(withBase('<head><base href="/admin/"><a href="/admin/">x</a>', '/s')).toBe(
      '<head><base href="/s/admin/"><a href="/admin/">x</a>',
    );
  });
});
