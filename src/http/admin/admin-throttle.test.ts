import { describe, expect, it } from 'vitest';
import { throttleKey } from './admin-throttle.js';

describe('throttleKey', () => {
  it('counts IPv4 clients per address', () => {
    expect(throttleKey('203.0.113.9')).toBe('203.0.113.9');
  });

  it('counts IPv6 clients per /64, whatever the interface id and spelling', () => {
    const a = throttleKey('2001:db8:1:2::1');
    expect(a).toBe('2001:0db8:0001:0002::/64');
    expect(throttleKey('2001:DB8:1:2:ffff:ffff:ffff:ffff')).toBe(a);
    expect(throttleKey('2001:db8:1:3::1')).not.toBe(a);
  });

  it('keeps anything unparseable as it is', () => {
    expect(throttleKey('unknown')).toBe('unknown');
  });
});
