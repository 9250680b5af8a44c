import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  clientAddress,
  clientIp,
  isSecureTransport,
  NO_TRUSTED_PROXIES,
  parseTrustedProxies,
} from './client-address.js';

function request(
  peer: string | undefined,
  headers: Record<string, string | string[]> = {},
  encrypted = false,
): IncomingMessage {
  return { socket: { remoteAddress: peer, encrypted }, headers } as unknown as IncomingMessage;
}

const proxies = parseTrustedProxies('10.0.0.0/8, 192.168.1.1,fd00::/8');

describe('parseTrustedProxies', () => {
  it('reads addresses and blocks, ignoring blanks', () => {
    expect(parseTrustedProxies('').length).toBe(0);
    expect(parseTrustedProxies(undefined).length).toBe(0);
    expect(parseTrustedProxies(' 10.0.0.1 , ,::1').length).toBe(2);
  });

  it('names a malformed entry', () => {
    expect(() => parseTrustedProxies('10.0.0.1,10.0.0.300')).toThrow(/10\.0\.0\.300/);
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(/10\.0\.0\.0\/33/);
    expect(() => parseTrustedProxies('proxy.internal')).toThrow(/proxy\.internal/);
  });
});

describe('clientAddress', () => {
  it('uses the socket when nobody is trusted, whatever the headers say', () => {
    expect(clientAddress(request('203.0.113.9', { 'x-forwarded-for': '1.1.1.1' }), NO_TRUSTED_PROXIES)).toBe(
      '203.0.113.9',
    );
  });

  it('ignores X-Forwarded-For from an untrusted peer', () => {
    expect(clientAddress(request('203.0.113.9', { 'x-forwarded-for': '1.1.1.1' }), proxies)).toBe('203.0.113.9');
  });

  it('takes the right-most untrusted hop from a trusted peer, so a spoofed left part does not count', () => {
    const req = request('10.1.2.3', { 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.9.9.9' });
    expect(clientAddress(req, proxies)).toBe('198.51.100.7');
  });

  it('walks repeated headers as one list', () => {
    const req = request('10.1.2.3', { 'x-forwarded-for': ['6.6.6.6', '198.51.100.7'] });
    expect(clientAddress(req, proxies)).toBe('198.51.100.7');
  });

  it('answers the left-most hop when every hop is a trusted proxy, and the peer without the header', () => {
    expect(clientAddress(request('10.1.2.3', { 'x-forwarded-for': '192.168.1.1, 10.0.0.5' }), proxies)).toBe(
      '192.168.1.1',
    );
    expect(clientAddress(request('10.1.2.3'), proxies)).toBe('10.1.2.3');
  });

  it('stops at a malformed hop and keeps the last good address', () => {
    expect(clientAddress(request('10.1.2.3', { 'x-forwarded-for': '198.51.100.7, garbage, 10.0.0.5' }), proxies)).toBe(
      '10.0.0.5',
    );
    expect(clientAddress(request('10.1.2.3', { 'x-forwarded-for': 'garbage' }), proxies)).toBe('10.1.2.3');
  });

  it('accepts hops with ports and bracketed IPv6', () => {
    expect(clientAddress(request('10.1.2.3', { 'x-forwarded-for': '198.51.100.7:5555' }), proxies)).toBe(
      '198.51.100.7',
    );
    expect(clientAddress(request('10.1.2.3', { 'x-forwarded-for': '[2001:DB8::1]:443' }), proxies)).toBe('2001:db8::1');
  });

  it('treats an IPv4-mapped peer as IPv4 (dual-stack sockets report ::ffff:a.b.c.d)', () => {
    expect(clientAddress(request('::ffff:10.1.2.3', { 'x-forwarded-for': '198.51.100.7' }), proxies)).toBe(
      '198.51.100.7',
    );
    expect(clientAddress(request('::ffff:203.0.113.9'), NO_TRUSTED_PROXIES)).toBe('203.0.113.9');
  });

  it('trusts IPv6 blocks', () => {
    expect(clientAddress(request('fd00::5', { 'x-forwarded-for': '2001:db8::7' }), proxies)).toBe('2001:db8::7');
  });

  it("says 'unknown' for a closed socket (clientIp: undefined, so aws:SourceIp is absent)", () => {
    expect(clientAddress(request(undefined), proxies)).toBe('unknown');
    expect(clientIp(request(undefined), proxies)).toBeUndefined();
    expect(clientIp(request('203.0.113.9'), proxies)).toBe('203.0.113.9');
  });
});

describe('isSecureTransport', () => {
  it('is true on a TLS socket', () => {
    expect(isSecureTransport(request('203.0.113.9', {}, true), NO_TRUSTED_PROXIES)).toBe(true);
  });

  it('believes X-Forwarded-Proto only from a trusted peer', () => {
    expect(isSecureTransport(request('203.0.113.9', { 'x-forwarded-proto': 'https' }), proxies)).toBe(false);
    expect(isSecureTransport(request('10.1.2.3', { 'x-forwarded-proto': 'https' }), proxies)).toBe(true);
    expect(isSecureTransport(request('10.1.2.3', { 'x-forwarded-proto': 'HTTPS ' }), proxies)).toBe(true);
    expect(isSecureTransport(request('10.1.2.3', { 'x-forwarded-proto': 'http' }), proxies)).toBe(false);
    expect(isSecureTransport(request('10.1.2.3'), proxies)).toBe(false);
  });

  it('uses the value the peer appended last', () => {
    expect(isSecureTransport(request('10.1.2.3', { 'x-forwarded-proto': 'https, http' }), proxies)).toBe(false);
    expect(isSecureTransport(request('10.1.2.3', { 'x-forwarded-proto': 'http, https' }), proxies)).toBe(true);
  });
});

describe('config and client-address agree on STORE_TRUSTED_PROXIES', async () => {
  const { malformedProxyEntries } = await import('../../config/config.js');
  const samples = [
    '10.0.0.1',
    '10.0.0.0/8',
    '0.0.0.0/0',
    '::/0',
    '::1',
    'fd00::/8',
    '::ffff:10.0.0.1',
    '::ffff:10.0.0.0/104',
    '2001:db8::1/128',
    '10.0.0.300',
    '10.0.0.0/33',
    'fd00::/129',
    'proxy',
    '10.0.0.0/8/1',
    '10.0.0.1/',
    '10.0.0.1/x',
    'fe80::1%eth0',
    '010.0.0.1',
    '1.2.3',
    '1:2:3:4:5:6:7:8:9',
    '::ffff:1.2.3.4.5',
    ':::1',
    '10.0.0.1/08',
  ];
  it.each(samples)('%s', (entry) => {
    const configRefuses = malformedProxyEntries(entry).length > 0;
    const parserRefuses = (() => {
      try {
        parseTrustedProxies(entry);
        return false;
      } catch {
        return true;
      }
    })();
    expect(configRefuses).toBe(parserRefuses);
  });
});

describe('peer addresses read in turn', () => {
  it('gives each request its own peer, whatever the one before it was', () => {
    const peers = ['203.0.113.9', '::ffff:198.51.100.7', '2001:DB8::1', '203.0.113.9', 'not-an-address', '203.0.113.9'];
    const expected = ['203.0.113.9', '198.51.100.7', '2001:db8::1', '203.0.113.9', undefined, '203.0.113.9'];
    expect(peers.map((peer) => clientIp(request(peer), NO_TRUSTED_PROXIES))).toEqual(expected);
    expect(peers.map((peer) => clientIp(request(peer), NO_TRUSTED_PROXIES))).toEqual(expected);
  });
});
