// The admin plane's sign-in and gate against the real server: login, the bearer check on every non-public route,
// and the token checks (tampered, alg none, wrong secret, expired, unknown user).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, UnsecuredJWT } from 'jose';
import { adminCall, adminLogin } from '../helpers/admin-session.js';
import { startServer, type RunningServer } from '../helpers/server.js';

let server: RunningServer;
let token: string;

const sessionOf = (jwt: string): string =>
  (JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as { sid: string }).sid;

beforeAll(async () => {
  server = await startServer();
  token = await adminLogin(server);
});
afterAll(async () => {
  await server.stop();
});

/** Signs a token like the server's, in the session (`sid`) of the real token unless told otherwise. */
const sign = (secret: string, claims: { sub: string; exp: number; aud?: string; iss?: string; sid?: string }): Promise<string> =>
  new SignJWT({ sid: claims.sid ?? sessionOf(token) }).setProtectedHeader({ alg: 'HS256' }).setSubject(claims.sub).setIssuer(claims.iss ?? 'store')
    .setAudience(claims.aud ?? 'store-admin').setIssuedAt().setExpirationTime(claims.exp).sign(new TextEncoder().encode(secret));

describe('admin sign-in', () => {
  it('logs in the bootstrap admin and answers auth/me', async () => {
    const me = await adminCall(server, token, 'GET', '/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'admin', role: 'full-admin', mustChangePassword: false });
  });

  it('refuses a wrong password and an unknown user with the same 401', async () => {
    const wrong = await adminCall(server, undefined, 'POST', '/auth/login', { username: 'admin', password: 'not-the-password' });
    const unknown = await adminCall(server, undefined, 'POST', '/auth/login', { username: 'nobody', password: 'x' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ error: 'Unauthorized', statusCode: 401 });
  });

  it('names the missing field of a malformed login body', async () => {
    const res = await adminCall(server, undefined, 'POST', '/auth/login', { username: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'ValidationError' });
    expect((res.body as { message: string }).message).toContain('password');
  });
});

describe('the bearer gate', () => {
  const me = (t: string | undefined) => adminCall(server, t, 'GET', '/auth/me');

  it('401 without a token, with a malformed header, and with garbage', async () => {
    expect((await me(undefined)).status).toBe(401);
    expect((await me('not a token')).status).toBe(401);
    expect((await me('abc.def.ghi')).status).toBe(401);
  });

  it('401 for a tampered token', async () => {
    const [h, p, s] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    payload['sub'] = 'someone-else';
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
    expect((await me(forged)).status).toBe(401);
  });

  it('401 for alg none, a wrong secret, an expired token and a wrong audience', async () => {
    const sub = ((await me(token)).body as { id: string }).id;
    const exp = Math.floor(Date.now() / 1000) + 600;
    const none = new UnsecuredJWT({}).setSubject(sub).setIssuer('store').setAudience('store-admin').setExpirationTime(exp).encode();
    expect((await me(none)).status).toBe(401);
    expect((await me(await sign('x'.repeat(10) + 'a-different-secret-of-enough-length', { sub, exp }))).status).toBe(401);
    expect((await me(await sign(server.env['JWT_SECRET'] as string, { sub, exp: Math.floor(Date.now() / 1000) - 10 }))).status).toBe(401);
    expect((await me(await sign(server.env['JWT_SECRET'] as string, { sub, exp, aud: 'someone-else' }))).status).toBe(401);
    // A token without a live session (no sid, or one that was never issued) is refused too.
    expect((await me(await sign(server.env['JWT_SECRET'] as string, { sub, exp, sid: 'not-a-session' }))).status).toBe(401);
    // The control: the same construction with the right secret and claims passes.
    expect((await me(await sign(server.env['JWT_SECRET'] as string, { sub, exp }))).status).toBe(200);
  });

  it('keeps health and ready public, and unknown routes 404 in the envelope', async () => {
    expect((await adminCall(server, undefined, 'GET', '/health')).status).toBe(200);
    expect((await adminCall(server, undefined, 'GET', '/ready')).status).toBe(200);
    const missing = await adminCall(server, undefined, 'GET', '/no-such-route');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'NotFound', statusCode: 404 });
  });
});
