// The admin console as the server serves it (the Vite build in dist/web, made by `npm run build`): at /admin with
// a history fallback, strict security headers, caching by kind of file, gzip, and only GET and HEAD. The console in
// a browser: test/e2e/console/.

import { describe, expect, it } from 'vitest';
import { useStore } from '../helpers/store.js';

const store = useStore();

function expectConsoleHeaders(res: Response): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/unsafe-(inline|eval)/);
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
}

describe('the console', () => {
  it('serves index.html at /admin and on any console route, never cached, with no inline script or style', async () => {
    for (const path of ['/admin', '/admin/', '/admin/buckets/photos/browse', '/admin/keys/ABC?x=1']) {
      const res = await fetch(`${store.server.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expectConsoleHeaders(res);
      const html = await res.text();
      expect(html).toContain('<base href="/admin/">');
      // Every script is an external file of this origin, and there is no inline style: the CSP would block them.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/<style|style="/);
    }
  });

  it('serves its hashed assets as immutable, gzipped on request, and answers 404 for one that does not exist', async () => {
    const html = await (await fetch(`${store.server.url}/admin/`)).text();
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="\.\/(assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await fetch(`${store.server.url}/admin/${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expectConsoleHeaders(js);
    expect((await js.text()).length).toBeGreaterThan(1000);
    const css = await fetch(`${store.server.url}/admin/${style}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const missing = await fetch(`${store.server.url}/admin/assets/index-Missing0.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('is read-only: any other method under /admin is an S3 request for the reserved bucket name', async () => {
    const res = await fetch(`${store.server.url}/admin/`, { method: 'POST' });
    expect(res.status).not.toBe(200);
    expect(res.headers.get('content-type') ?? '').not.toContain('text/html');
  });

  it('is case-sensitive: /Admin is not the console', async () => {
    const res = await fetch(`${store.server.url}/Admin/`);
    expect(res.headers.get('content-type') ?? '').not.toContain('text/html');
  });
});

describe('the console under MOUNT_PATH', () => {
  const mounted = useStore({ env: { MOUNT_PATH: '/storage' } });

  it('lives at MOUNT_PATH/admin with its base there, and not at /admin', async () => {
    const res = await fetch(`${mounted.server.url}/storage/admin/objects`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<base href="/storage/admin/">');
    expectConsoleHeaders(res);
    expect((await fetch(`${mounted.server.url}/admin/`)).status).toBe(404);
  });
});
