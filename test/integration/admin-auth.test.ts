// The admin plane's sign-in and gate against the real server: login, the bearer check on every non-public route,
// the token checks (tampered, alg none, wrong secret, expired, unknown user), and refresh sessions: the cookie,
// rotation, reuse detection revoking the family, and logout.

import { describe, expect, it } from 'vitest';
import { SignJWT, UnsecuredJWT } from 'jose';
import { login, logout, refresh, signIn } from '../helpers/admin-flow.js';
import { adminCall } from '../helpers/admin-session.js';
import { useStore } from '../helpers/store.js';

// Loopback is a trusted proxy here, so each sign-in can come from its own client address (X-Forwarded-For) and the
// tests stay under the login limit; admin-throttle.test.ts tests the limit itself.
const store = useStore({ env: { STORE_TRUSTED_PROXIES: '127.0.0.1', AUDIT_FLUSH_MS: '250' } });

const sessionOf = (jwt: string): string =>
  (JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as { sid: string }).sid;

/** Signs a token like the server's, in the session (`sid`) of the real token unless told otherwise. */
const sign = async (
  secret: string,
  claims: { sub: string; exp: number; aud?: string; iss?: string; sid?: string },
): Promise<string> =>
  new SignJWT({ sid: claims.sid ?? sessionOf(await store.admin()) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.sub)
    .setIssuer(claims.iss ?? 'store')
    .setAudience(claims.aud ?? 'store-admin')
    .setIssuedAt()
    .setExpirationTime(claims.exp)
    .sign(new TextEncoder().encode(secret));

describe('admin sign-in', () => {
  it('logs in the bootstrap admin and answers auth/me', async () => {
    const me = await store.adminCall('GET', '/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'admin', role: 'full-admin', mustChangePassword: false });
  });

  it('refuses a wrong password and an unknown user with the same 401', async () => {
    const wrong = await adminCall(store.server, undefined, {
      method: 'POST',
      path: '/auth/login',
      body: { username: 'admin', password: 'not-the-password' },
    });
    const unknown = await adminCall(store.server, undefined, {
      method: 'POST',
      path: '/auth/login',
      body: { username: 'nobody', password: 'x' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toMatchObject({ error: 'Unauthorized', statusCode: 401 });
  });

  it('names the missing field of a malformed login body', async () => {
    const res = await adminCall(store.server, undefined, {
      method: 'POST',
      path: '/auth/login',
      body: { username: 'admin' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'ValidationError' });
    expect((res.body as { message: string }).message).toContain('password');
  });
});

describe('the bearer gate', () => {
  const me = (t: string | undefined) => adminCall(store.server, t, { method: 'GET', path: '/auth/me' });

  it('401 without a token, with a malformed header, and with garbage', async () => {
    expect((await me(undefined)).status).toBe(401);
    expect((await me('not a token')).status).toBe(401);
    expect((await me('abc.def.ghi')).status).toBe(401);
  });

  it('401 for a tampered token', async () => {
    const [h, p, s] = (await store.admin()).split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    payload['sub'] = 'someone-else';
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
    expect((await me(forged)).status).toBe(401);
  });

  it('401 for alg none, a wrong secret, an expired token and a wrong audience', async () => {
    const sub = ((await me(await store.admin())).body as { id: string }).id;
    const exp = Math.floor(Date.now() / 1000) + 600;
    const none = new UnsecuredJWT({})
      .setSubject(sub)
      .setIssuer('store')
      .setAudience('store-admin')
      .setExpirationTime(exp)
      .encode();
    expect((await me(none)).status).toBe(401);
    expect((await me(await sign('x'.repeat(10) + 'a-different-secret-of-enough-length', { sub, exp }))).status).toBe(
      401,
    );
    expect(
      (await me(await sign(store.server.env['JWT_SECRET'] as string, { sub, exp: Math.floor(Date.now() / 1000) - 10 })))
        .status,
    ).toBe(401);
    expect(
      (await me(await sign(store.server.env['JWT_SECRET'] as string, { sub, exp, aud: 'someone-else' }))).status,
    ).toBe(401);
    // A token without a live session (no sid, or one that was never issued) is refused too.
    expect(
      (await me(await sign(store.server.env['JWT_SECRET'] as string, { sub, exp, sid: 'not-a-session' }))).status,
    ).toBe(401);
    // The control: the same construction with the right secret and claims passes.
    expect((await me(await sign(store.server.env['JWT_SECRET'] as string, { sub, exp }))).status).toBe(200);
  });

  it('keeps health and ready public, and unknown routes 404 in the envelope', async () => {
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/health' })).status).toBe(200);
    expect((await adminCall(store.server, undefined, { method: 'GET', path: '/ready' })).status).toBe(200);
    const missing = await adminCall(store.server, undefined, { method: 'GET', path: '/no-such-route' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'NotFound', statusCode: 404 });
  });
});

describe('refresh sessions', () => {
  const me = (t: string) => adminCall(store.server, t, { method: 'GET', path: '/auth/me' });

  it('login sets the store_refresh cookie: HttpOnly, Secure, SameSite=Strict, scoped to the auth routes, 7 days', async () => {
    const res = await login(store.server);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), expiresIn: 900 });
    expect(res.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const attributes = (res.setCookie ?? '').split(';').map((a) => a.trim());
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/api/admin/auth', 'Max-Age=604800']),
    );
  });

  it('a failed login sets no cookie', async () => {
    const res = await login(store.server, { password: 'wrong-password' });
    expect(res.status).toBe(401);
    expect(res.setCookie).toBeNull();
  });

  it('refresh answers a new access token and rotates the cookie', async () => {
    const session = await signIn(store.server);
    const res = await refresh(store.server, session.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), expiresIn: 900 });
    expect(res.cookie).toBeDefined();
    expect(res.cookie).not.toBe(session.cookie);
    expect(res.setCookie).toContain('Path=/api/admin/auth');
    expect((await me(res.accessToken as string)).status).toBe(200);
    // The rotated token works once more, and so on.
    const again = await refresh(store.server, res.cookie);
    expect(again.status).toBe(200);
  });

  it('refuses a reused token with 401, revokes the whole family and its access tokens, and audits it', async () => {
    const session = await signIn(store.server);
    const other = await signIn(store.server);
    const second = await refresh(store.server, session.cookie);
    const third = await refresh(store.server, second.cookie);
    expect(third.status).toBe(200);

    const reused = await refresh(store.server, session.cookie);
    expect(reused.status).toBe(401);
    expect(reused.body).toMatchObject({ error: 'Unauthorized', statusCode: 401 });
    expect(reused.setCookie).toContain('Max-Age=0');
    // The newest token of the family and every access token of it are dead too.
    expect((await refresh(store.server, third.cookie)).status).toBe(401);
    for (const t of [session.token, second.accessToken, third.accessToken])
      expect((await me(t as string)).status).toBe(401);
    // Another sign-in of the same admin is another family: untouched.
    expect((await me(other.token)).status).toBe(200);
    expect((await refresh(store.server, other.cookie)).status).toBe(200);

    const deadline = Date.now() + 5000;
    let items: { event: string; subject: string }[] = [];
    while (Date.now() < deadline) {
      const res = await store.adminCall('GET', '/audit?event=auth.refresh_reused');
      items = (res.body as { items: typeof items }).items;
      if (items.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(items).toEqual([expect.objectContaining({ event: 'auth.refresh_reused', subject: 'admin' })]);
  });

  it('refuses a missing, malformed or unknown cookie with 401', async () => {
    expect((await refresh(store.server, undefined)).status).toBe(401);
    expect((await refresh(store.server, 'garbage')).status).toBe(401);
    expect((await refresh(store.server, 'A'.repeat(43))).status).toBe(401);
  });

  it('logout with the token and the cookie: 204, the cookie cleared, the session over', async () => {
    const session = await signIn(store.server);
    const res = await logout(store.server, session.token, { cookie: session.cookie });
    expect(res.status).toBe(204);
    expect(res.setCookie).toMatch(/^store_refresh=; Path=\/api\/admin\/auth; Max-Age=0/);
    expect((await refresh(store.server, session.cookie)).status).toBe(401);
    expect((await me(session.token)).status).toBe(401);
  });

  it("logout with the token alone ends the token's session, cookie included", async () => {
    const session = await signIn(store.server);
    expect((await logout(store.server, session.token)).status).toBe(204);
    expect((await refresh(store.server, session.cookie)).status).toBe(401);
  });

  it('logout leaves other sessions alone and needs a token', async () => {
    const a = await signIn(store.server);
    const b = await signIn(store.server);
    expect((await logout(store.server, a.token, { cookie: a.cookie })).status).toBe(204);
    expect((await me(b.token)).status).toBe(200);
    const anonymous = await fetch(`${store.server.url}/api/admin/auth/logout`, {
      method: 'POST',
      headers: { cookie: `store_refresh=${b.cookie}` },
    });
    expect(anonymous.status).toBe(401);
    expect((await refresh(store.server, b.cookie)).status).toBe(200);
  });
});
