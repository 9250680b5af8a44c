// A test-only DNS for virtual-hosted addressing: a `lookup` (for http.Agent or http.request) that resolves a domain
// and every name under it to the loopback address, and records each name asked for (proof of what a client
// addressed). No /etc/hosts, no resolver.

import type { LookupFunction } from 'node:net';

export interface TestDns {
  lookup: LookupFunction;
  /** Every name asked for, in order. */
  resolved: string[];
}

export function testDns(domain: string): TestDns {
  const resolved: string[] = [];
  const lookup = ((hostname: string, options: unknown, callback: (...args: unknown[]) => void) => {
    resolved.push(hostname);
    if (hostname !== domain && !hostname.endsWith(`.${domain}`)) {
      callback(Object.assign(new Error(`test lookup: ${hostname} is not under ${domain}`), { code: 'ENOTFOUND' }));
      return;
    }
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
    if (all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  }) as LookupFunction;
  return { lookup, resolved };
}
