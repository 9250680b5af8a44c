// The admin console's static files (the Vite build of web/) at MOUNT_PATH/admin: the files of the build directory,
// read once at boot, with a history fallback to index.html for every other path under /admin (so a hard refresh
// on any console route works), strict security headers on every answer, and caching by kind of file.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ConsoleRouteOptions {
  /** The build directory (index.html and assets/); when it has no index.html, /admin answers 503 "not built". */
  dir: string;
  /** MOUNT_PATH ('' or like /storage): the console lives at <mountPath>/admin. */
  mountPath: string;
}

/**
 * Headers on every console answer. The CSP allows only this origin's own files: no inline script or style, no eval,
 * no plugins, no framing; images, audio and video also from blob: (previews are fetched as blobs and shown through
 * object URLs); workers from this origin only (pdf.js's, for PDF previews).
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob:",
    "media-src 'self' blob:",
    "worker-src 'self'",
    "connect-src 'self'",
    "font-src 'self'",
    "manifest-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.txt', '.webmanifest']);
/** Vite names the files of assets/ after their content: such a URL never changes meaning, so caches may keep it. */
const IMMUTABLE = /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

interface ConsoleFile {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
  /** Compressed on first request and kept; undefined when not worth compressing. */
  gzip?: Buffer | null;
}

function walk(dir: string, root: string, out: Map<string, ConsoleFile>): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      walk(path, root, out);
      continue;
    }
    const rel = relative(root, path).split(sep).join('/');
    const body = readFileSync(path);
    out.set(rel, {
      body,
      type: TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      cacheControl: IMMUTABLE.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...(COMPRESSIBLE.has(extname(name).toLowerCase()) && body.length > 512 ? {} : { gzip: null }),
    });
  }
}

/**
 * index.html with its `<base href="/admin/">` pointed at this mount, so the relative asset URLs Vite writes
 * (`./assets/...`) resolve from any console route, however deep, and under any MOUNT_PATH.
 */
export function withBase(html: string, mountPath: string): string {
  return html.replace(/<base href="[^"]*"\s*\/?>/, `<base href="${mountPath}/admin/">`);
}

/** Reads the build directory: every file by its path relative to it; an empty map if it is missing. */
export function loadConsoleFiles(dir: string, mountPath: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  if (!existsSync(join(dir, 'index.html'))) return files;
  walk(dir, dir, files);
  const index = files.get('index.html');
  if (index) {
    const body = Buffer.from(withBase(index.body.toString('utf8'), mountPath));
    files.set('index.html', {
      ...index,
      body,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    });
  }
  return files;
}

function acceptsGzip(req: FastifyRequest): boolean {
  return /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
}

function send(req: FastifyRequest, reply: FastifyReply, file: ConsoleFile): FastifyReply {
  void reply.headers({
    'content-type': file.type,
    'cache-control': file.cacheControl,
    etag: file.etag,
    vary: 'Accept-Encoding',
  });
  const match = req.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) {
    return reply.status(304).send();
  }
  if (file.gzip === undefined) file.gzip = gzipSync(file.body, { level: 9 });
  const body = file.gzip !== null && acceptsGzip(req) ? file.gzip : file.body;
  if (body !== file.body) void reply.header('content-encoding', 'gzip');
  void reply.header('content-length', body.length);
  // The body is sent for HEAD too: Node drops it and keeps the length (an empty body would make it 0).
  return reply.send(body);
}

/**
 * GET (and HEAD) <mount>/admin and <mount>/admin/*. A path naming a file of the build serves it; a missing file
 * under assets/ is a 404 (a stale chunk must fail loudly, not parse HTML as script); any other path is a console
 * route and gets index.html. Only files found at boot are served: request paths never reach the filesystem.
 */
export function consoleRoutes(app: FastifyInstance, opts: ConsoleRouteOptions): void {
  const files = loadConsoleFiles(opts.dir, opts.mountPath);
  const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    void reply.headers(CONSOLE_SECURITY_HEADERS);
    const index = files.get('index.html');
    if (!index) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('The admin console is not built. Run `npm run build`.\n');
    }
    const rest = (req.params as { '*'?: string })['*'] ?? '';
    const file = rest === '' || rest === 'index.html' ? index : files.get(rest);
    if (file) return send(req, reply, file);
    if (rest.startsWith('assets/')) {
      return reply
        .status(404)
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('Not found\n');
    }
    return send(req, reply, index);
  };
  app.get(`${opts.mountPath}/admin`, handler);
  app.get(`${opts.mountPath}/admin/*`, handler);
}
