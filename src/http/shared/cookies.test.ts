import { describe, expect, it } from 'vitest';
import { parseCookies, serializeCookie } from './cookies.js';

describe('parseCookies', () => {
  it('reads every pair, trimming spaces and unquoting', () => {
    const cookies = parseCookies('a=1; store_refresh=abc-DEF_123 ;  q="quoted"');
    expect(Object.fromEntries(cookies)).toEqual({ a: '1', store_refresh: 'abc-DEF_123', q: 'quoted' });
  });

  it('keeps the first of a repeated name', () => {
    expect(parseCookies('x=first; x=second').get('x')).toBe('first');
  });

  it('skips malformed pairs instead of failing', () => {
    const cookies = parseCookies('novalue; =nameless; bad name=1; ok=2; sp=a b; semi=a\\b');
    expect(Object.fromEntries(cookies)).toEqual({ ok: '2' });
  });

  it('keeps = inside a value', () => {
    expect(parseCookies('t=abc==').get('t')).toBe('abc==');
  });

  it('answers an empty map for no header', () => {
    expect(parseCookies(undefined).size).toBe(0);
    expect(parseCookies('').size).toBe(0);
  });
});

describe('serializeCookie', () => {
  it('writes the attributes of the refresh cookie', () => {
    const header = serializeCookie('store_refresh', 'tok', {
      path: '/storage/api/admin/auth',
      maxAge: 604800,
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });
    expect(header).toMatch(
      /^store_refresh=tok; Path=\/storage\/api\/admin\/auth; Max-Age=604800; Expires=[^;]+ GMT; HttpOnly; Secure; SameSite=Strict$/,
    );
  });

  it('expires a deleted cookie in the past', () => {
    const header = serializeCookie('c', '', { path: '/', maxAge: 0 });
    expect(header).toContain('Max-Age=0');
    expect(header).toContain('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  });

  it('round-trips through parseCookies', () => {
    const header = serializeCookie('n', 'v-1_2.3~', { path: '/', maxAge: 1 });
    expect(parseCookies(header.split(';')[0]).get('n')).toBe('v-1_2.3~');
  });

  it('refuses names, values and paths that would split the header', () => {
    expect(() => serializeCookie('a;b', 'v', { path: '/', maxAge: 1 })).toThrow();
    expect(() => serializeCookie('a', 'v;Domain=evil', { path: '/', maxAge: 1 })).toThrow();
    expect(() => serializeCookie('a', 'v', { path: '/x;Domain=evil', maxAge: 1 })).toThrow();
    expect(() => serializeCookie('a', 'v', { path: 'relative', maxAge: 1 })).toThrow();
    expect(() => serializeCookie('a', 'v', { path: '/', maxAge: -1 })).toThrow();
  });
});
