// Who the client is and whether it connected over TLS, for both planes (login throttle, admin throttle, audit,
// aws:SourceIp, aws:SecureTransport). Forwarded headers count only when the direct peer is a configured trusted
// proxy (STORE_TRUSTED_PROXIES); otherwise the socket decides, so a client cannot choose its own address.

import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { cidrContains, parseCidr, parseIp, type Cidr } from '../../core/policy/ip.js';
import { memoLast } from '../../lib/memo-last.js';

/** The trusted proxies: addresses and CIDR blocks. Empty trusts nobody. */
export type TrustedProxies = readonly Cidr[];

export const NO_TRUSTED_PROXIES: TrustedProxies = [];

/**
 * Parses STORE_TRUSTED_PROXIES (comma-separated IPv4/IPv6 addresses and CIDR blocks; blanks ignored). Throws a
 * plain Error naming the bad entry (config validation refuses such a value at boot, so this is a second line).
 */
export function parseTrustedProxies(list: string | undefined): TrustedProxies {
  const entries = (list ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return entries.map((entry) => {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`STORE_TRUSTED_PROXIES: ${JSON.stringify(entry)} is not an IP address or CIDR block`);
    return cidr;
  });
}

/** An address as one canonical string: IPv4 (also when mapped into IPv6) dotted, IPv6 lower-case. */
function canonical(text: string): string | undefined {
  const ip = parseIp(text);
  if (!ip) return undefined;
  return ip.version === 4 ? ip.bytes.join('.') : text.trim().toLowerCase().replace(/%.*$/, '');
}

/** One X-Forwarded-For hop, tolerating `1.2.3.4:5678` and `[2001:db8::1]:443` (some proxies add the port). */
function hopAddress(hop: string): string | undefined {
  const trimmed = hop.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(trimmed);
  if (bracketed) return canonical(bracketed[1] as string);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(trimmed);
  return canonical(v4WithPort ? (v4WithPort[1] as string) : trimmed);
}

function isTrusted(address: string, trusted: TrustedProxies): boolean {
  const ip = parseIp(address);
  return ip !== undefined && trusted.some((cidr) => cidrContains(cidr, ip));
}

/** `canonical` for socket addresses, memoised: a server's requests come from few peers, often one (a proxy). */
const canonicalPeer = memoLast(canonical);

/** The socket's peer address, canonical; undefined when the socket has closed (Node reports undefined then). */
function peerAddress(req: IncomingMessage): string | undefined {
  const raw = req.socket.remoteAddress;
  return raw ? canonicalPeer(raw) : undefined;
}

/**
 * The client's address. From a trusted peer, X-Forwarded-For is walked from the right (the hop the peer itself
 * appended) past every trusted proxy; the first untrusted hop is the client. A malformed hop stops the walk at the
 * last good one, since anything left of it was written by someone we cannot vouch for. From any other peer, or
 * without the header, the socket's address.
 */
export function clientIp(req: IncomingMessage, trusted: TrustedProxies): string | undefined {
  let address = peerAddress(req);
  if (address === undefined || trusted.length === 0 || !isTrusted(address, trusted)) return address;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').filter((h) => h.trim() !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hopAddress(hops[i] as string);
    if (hop === undefined) break;
    address = hop;
    if (!isTrusted(hop, trusted)) break;
  }
  return address;
}

/** `clientIp`, or 'unknown' when the socket is already gone (a key for throttles and audit details). */
export function clientAddress(req: IncomingMessage, trusted: TrustedProxies): string {
  return clientIp(req, trusted) ?? 'unknown';
}

/**
 * Whether the client's connection was TLS: the socket itself, or, from a trusted peer, X-Forwarded-Proto as the peer
 * set it (its right-most value, since a proxy that appends puts its own view last).
 */
export function isSecureTransport(req: IncomingMessage, trusted: TrustedProxies): boolean {
  if ((req.socket as Partial<TLSSocket>).encrypted === true) return true;
  const peer = peerAddress(req);
  if (peer === undefined || trusted.length === 0 || !isTrusted(peer, trusted)) return false;
  const header = req.headers['x-forwarded-proto'];
  const values = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  return (values[values.length - 1] ?? '').trim().toLowerCase() === 'https';
}
