// IPv4 and IPv6 addresses and CIDR blocks for the IpAddress / NotIpAddress condition operators.
// Written here rather than with node:net because core/ may not import networking modules.
// An IPv4-mapped IPv6 address (::ffff:a.b.c.d, what a dual-stack socket reports) is treated as its IPv4 address.

export interface IpAddress {
  readonly version: 4 | 6;
  /** 4 bytes for IPv4, 16 for IPv6. */
  readonly bytes: readonly number[];
}

export interface Cidr {
  readonly address: IpAddress;
  readonly prefixLength: number;
}

const IPV4_PART = /^(0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!IPV4_PART.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

function groupsOf(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (const [i, part] of parts.entries()) {
    // The last group may be a dotted IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4).
    if (i === parts.length - 1 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    } else {
      if (!HEX_GROUP.test(part)) return undefined;
      groups.push(parseInt(part, 16));
    }
  }
  return groups;
}

function parseIpv6(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0] ?? '');
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '') : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

function isMappedV4(bytes: readonly number[]): boolean {
  return bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

/** Parses an IPv4 or IPv6 address (a zone suffix such as %eth0 is ignored). Mapped IPv4 becomes IPv4. */
export function parseIp(text: string): IpAddress | undefined {
  const bare = text.trim().replace(/%[^%]*$/, '');
  if (bare.includes(':')) {
    const bytes = parseIpv6(bare);
    if (bytes === undefined) return undefined;
    return isMappedV4(bytes) ? { version: 4, bytes: bytes.slice(12) } : { version: 6, bytes };
  }
  const bytes = parseIpv4(bare);
  return bytes === undefined ? undefined : { version: 4, bytes };
}

/**
 * Parses `a.b.c.d/n`, `x:y::z/n` or a bare address (a /32 or /128 block). A mapped-IPv4 block
 * (::ffff:0:0/96 and narrower) becomes the equivalent IPv4 block. Host bits may be set (they are ignored).
 */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  if (addrText.includes('%')) return undefined;
  const lenText = slash < 0 ? undefined : text.slice(slash + 1);
  if (lenText !== undefined && !/^\d{1,3}$/.test(lenText)) return undefined;
  const isV6Text = addrText.includes(':');
  const raw = isV6Text ? parseIpv6(addrText) : parseIpv4(addrText);
  if (raw === undefined) return undefined;
  const max = isV6Text ? 128 : 32;
  const prefixLength = lenText === undefined ? max : Number(lenText);
  if (prefixLength > max) return undefined;
  if (isV6Text && isMappedV4(raw) && prefixLength >= 96) {
    return { address: { version: 4, bytes: raw.slice(12) }, prefixLength: prefixLength - 96 };
  }
  return { address: { version: isV6Text ? 6 : 4, bytes: raw }, prefixLength };
}

/** Is `ip` inside `cidr`? Addresses of different families never match. */
export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  if (cidr.address.version !== ip.version) return false;
  let bits = cidr.prefixLength;
  for (let i = 0; bits > 0; i += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((cidr.address.bytes[i] ?? 0) & mask) !== ((ip.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}
