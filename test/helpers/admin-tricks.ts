// Hostile variants of admin requests for the guard tests (test/integration/admin-path-tricks.test.ts): the same
// route spelled with other case, dot segments, doubled or encoded slashes, trailing junk or an absolute-form target,
// sent byte-exact with node:http (fetch would normalise most of them away), and tokens that must not authenticate.

import { Agent, request } from 'node:http';
import { SignJWT, decodeJwt } from 'jose';
import type { RunningServer } from './server.js';

export interface RawAdminResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface TrickRequest {
  method: string;
  /** Request target exactly as sent. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });
let client = 0;

/**
 * Sends one request byte-exact. Each comes from its own X-Forwarded-For address (the server must trust loopback),
 * so the admin throttle never answers 429 in place of the guard.
 */
export function sendRaw(server: RunningServer, req: TrickRequest): Promise<RawAdminResponse> {
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  client++;
  const headers: Record<string, string> = {
    'x-forwarded-for': `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`,
    ...(body === undefined ? {} : { 'content-length': String(body.length) }),
    ...req.headers,
  };
  return new Promise((resolve, reject) => {
    const r = request(
      { host: '127.0.0.1', port: server.port, method: req.method, path: req.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** Runs `tasks` with at most `width` in flight. */
export async function inParallel<T>(tasks: Array<() => Promise<T>>, width = 8): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await (tasks[i] as () => Promise<T>)();
      }
    }),
  );
  return results;
}

/**
 * The same admin route (`/api/admin/...` below `mount`) spelled every way a guard and a router could disagree on.
 * The first entry is the plain path.
 */
export function pathTricks(mount: string, path: string, port: number): string[] {
  if (!path.startsWith('/api/admin/')) throw new Error(`not an admin path: ${path}`);
  const rest = path.slice('/api/admin'.length); // '/users/...'
  const at = (prefix: string): string => `${mount}${prefix}${rest}`;
  const variants = [
    at('/api/admin'),
    at('/api/Admin'),
    at('/API/ADMIN'),
    at('/Api/admin'),
    `${mount}/api/admin${rest.toUpperCase()}`,
    at('/api/admin/'),
    `/${mount}/api/admin${rest}`,
    at('//api/admin'),
    at('/api//admin'),
    at('/api/admin/.'),
    at('/api/admin/x/..'),
    at('/x/../api/admin'),
    at('/api/./admin'),
    at('/api/admin/%2e'),
    at('/api/admin/x/%2e%2e'),
    at('/api/admin/x/%2E%2E'),
    at('/%2e%2e/api/admin'),
    at('/api/admin/%2e%2e/admin'),
    at('/api%2fadmin'),
    at('/api%2Fadmin'),
    `${mount}/api/admin%2F${rest.slice(1)}`,
    at('/api/%61dmin'),
    at('/%61pi/admin'),
    at('/api/admi%6E'),
    `${at('/api/admin')}/`,
    `${at('/api/admin')}//`,
    `${at('/api/admin')}/.`,
    `${at('/api/admin')};x=1`,
    at('/api/admin;'),
    `${at('/api/admin')}%00`,
    `${at('/api/admin')}%20`,
    `${at('/api/admin')}?`,
    `${at('/api/admin')}#frag`,
    at('/api\\admin'),
    `http://127.0.0.1:${port}${at('/api/admin')}`,
    `http://127.0.0.1:${port}${at('/api/Admin')}`,
  ];
  if (mount !== '') {
    variants.push(
      `${mount.toUpperCase()}/api/admin${rest}`,
      `${mount}/../${mount.slice(1)}/api/admin${rest}`,
      `${mount}%2fapi/admin${rest}`,
      `${mount}/%2e%2e${mount}/api/admin${rest}`,
      `/api/admin${rest}`,
      `${mount}/${mount.slice(1)}/api/admin${rest}`,
    );
  }
  return [...new Set(variants)];
}

/** Tokens that must never authenticate, made from a real full-admin token and the server's JWT_SECRET. */
export async function hostileTokens(server: RunningServer, fullAdminToken: string): Promise<Record<string, string>> {
  const claims = decodeJwt(fullAdminToken);
  const secret = new TextEncoder().encode(server.env['JWT_SECRET']);
  const base = () =>
    new SignJWT({ username: claims['username'], sid: claims['sid'] })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(claims.sub))
      .setIssuer('store')
      .setAudience('store-admin');
  const now = Math.floor(Date.now() / 1000);
  const [header, payload, signature] = fullAdminToken.split('.') as [string, string, string];
  const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
  const unsigned = (h: object, p: object): string =>
    `${Buffer.from(JSON.stringify(h)).toString('base64url')}.${Buffer.from(JSON.stringify(p)).toString('base64url')}.`;
  return {
    expired: await base()
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(secret),
    garbled: `${header}.${payload}.${flipped}`,
    'alg-none': unsigned({ alg: 'none', typ: 'JWT' }, claims),
    'wrong-secret': await base()
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(new TextEncoder().encode('x'.repeat(48))),
    'wrong-audience': await new SignJWT({ username: claims['username'], sid: claims['sid'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(claims.sub))
      .setIssuer('store')
      .setAudience('someone-else')
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(secret),
    'no-session': await new SignJWT({ username: claims['username'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(claims.sub))
      .setIssuer('store')
      .setAudience('store-admin')
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(secret),
  };
}
