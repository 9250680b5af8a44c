// Cookie headers, both ways (RFC 6265): parse a request's Cookie header; serialise one Set-Cookie value.
// Small on purpose: the admin plane has one cookie (store_refresh), so no cookie package is needed.

export interface CookieOptions {
  path: string;
  /** Seconds; 0 deletes the cookie. */
  maxAge: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

// RFC 6265 section 4.1.1: a name is an RFC 7230 token; a value is cookie-octets (no space, quote, comma, ; or \).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
const PATH_VALUE = /^[\x20-\x3A\x3C-\x7E]+$/;

/**
 * The cookies of a Cookie header, name -> value. When a name repeats, the first wins (user agents send the
 * cookie with the longest path first, RFC 6265 section 5.4). Malformed pairs are skipped, never thrown on.
 */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const name = pair.slice(0, eq).trim();
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!TOKEN.test(name) || !COOKIE_VALUE.test(value) || cookies.has(name)) continue;
    cookies.set(name, value);
  }
  return cookies;
}

/** One Set-Cookie header value. Throws a plain Error for a name, value or path a browser would misread (a bug). */
export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  if (!TOKEN.test(name)) throw new Error(`invalid cookie name ${JSON.stringify(name)}`);
  if (!COOKIE_VALUE.test(value)) throw new Error('invalid cookie value');
  if (!PATH_VALUE.test(opts.path) || !opts.path.startsWith('/'))
    throw new Error(`invalid cookie path ${JSON.stringify(opts.path)}`);
  if (!Number.isInteger(opts.maxAge) || opts.maxAge < 0) throw new Error('invalid cookie max-age');
  const parts = [`${name}=${value}`, `Path=${opts.path}`, `Max-Age=${opts.maxAge}`];
  // Expires as well, for the rare client that ignores Max-Age (RFC 6265 section 5.3 prefers Max-Age when both exist).
  const expires = opts.maxAge === 0 ? new Date(0) : new Date(Date.now() + opts.maxAge * 1000);
  parts.push(`Expires=${expires.toUTCString()}`);
  if (opts.httpOnly) parts.push('HttpOnly');
  if (opts.secure) parts.push('Secure');
  if (opts.sameSite) parts.push(`SameSite=${opts.sameSite}`);
  return parts.join('; ');
}
