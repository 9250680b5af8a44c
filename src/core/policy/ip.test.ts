import { describe, expect, it } from 'vitest';
import { cidrContains, parseCidr, parseIp } from './ip.js';

function inBlock(cidr: string, ip: string): boolean {
  const block = parseCidr(cidr);
  const addr = parseIp(ip);
  if (block === undefined || addr === undefined) throw new Error(`bad fixture ${cidr} ${ip}`);
  return cidrContains(block, addr);
}

describe('parseIp', () => {
  it.each([
    ['127.0.0.1', 4, [127, 0, 0, 1]],
    ['::1', 6, [...new Array<number>(15).fill(0), 1]],
    ['::ffff:10.1.2.3', 4, [10, 1, 2, 3]],
    ['::FFFF:0a01:0203', 4, [10, 1, 2, 3]],
    ['fe80::1%eth0', 6, [0xfe, 0x80, ...new Array<number>(13).fill(0), 1]],
  ])('parses %s', (text, version, bytes) => {
    expect(parseIp(text)).toEqual({ version, bytes });
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.4:80',
    ':::',
    '1::2::3',
    '12345::',
    'g::1',
    '1:2:3:4:5:6:7:8:9',
    'localhost',
  ])('refuses %s', (text) => {
    expect(parseIp(text)).toBeUndefined();
  });
});

describe('parseCidr and cidrContains', () => {
  it.each([
    ['10.0.0.0/8', '10.255.1.2', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['192.168.1.0/24', '192.168.1.77', true],
    ['192.168.1.0/24', '192.168.2.1', false],
    ['192.168.1.1/24', '192.168.1.200', true],
    ['54.240.143.188/32', '54.240.143.188', true],
    ['54.240.143.188', '54.240.143.189', false],
    ['0.0.0.0/0', '8.8.8.8', true],
    ['10.0.0.0/9', '10.127.0.0', true],
    ['10.0.0.0/9', '10.128.0.0', false],
    ['10.0.0.0/8', '::ffff:10.0.0.5', true],
    ['2001:db8::/32', '2001:db8:1234::1', true],
    ['2001:db8::/32', '2001:db9::1', false],
    ['2001:db8::/32', '10.0.0.1', false],
    ['10.0.0.0/8', '2001:db8::1', false],
    ['::ffff:10.0.0.0/104', '10.9.9.9', true],
    ['::ffff:10.0.0.0/104', '11.9.9.9', false],
    ['::/0', '2600::1', true],
    ['::/0', '1.2.3.4', false],
  ])('%s contains %s: %s', (cidr, ip, expected) => {
    expect(inBlock(cidr, ip)).toBe(expected);
  });

  it.each(['1.2.3.4/33', '::/129', '1.2.3.4/', '1.2.3.4/a', '1.2.3.4/8/8', 'x/8', 'fe80::1%eth0/64'])(
    'refuses %s',
    (text) => {
      expect(parseCidr(text)).toBeUndefined();
    },
  );
});
