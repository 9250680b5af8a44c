import { describe, expect, it } from 'vitest';
import { consolePaths, routeOf } from './base-path';

describe('consolePaths', () => {
  it('finds the mount and the API base from the console base path', () => {
    expect(consolePaths('/admin/')).toEqual({ consoleBase: '/admin/', mount: '', apiBase: '/api/admin' });
    expect(consolePaths('/storage/admin/')).toEqual({
      consoleBase: '/storage/admin/',
      mount: '/storage',
      apiBase: '/storage/api/admin',
    });
    expect(consolePaths('/a/b/admin')).toEqual({
      consoleBase: '/a/b/admin/',
      mount: '/a/b',
      apiBase: '/a/b/api/admin',
    });
  });

  it('handles a mount that itself contains "admin"', () => {
    expect(consolePaths('/admin/admin/').mount).toBe('/admin');
  });

  it('falls back to the root for a path that is not a console base (the dev server)', () => {
    expect(consolePaths('/')).toEqual({ consoleBase: '/admin/', mount: '', apiBase: '/api/admin' });
  });
});

describe('routeOf', () => {
  it('is the path after the console base, without slashes at the ends', () => {
    expect(routeOf('/admin/', '/admin/')).toBe('');
    expect(routeOf('/admin', '/admin/')).toBe('');
    expect(routeOf('/storage/admin/buckets/photos/', '/storage/admin/')).toBe('buckets/photos');
    expect(routeOf('/elsewhere', '/admin/')).toBe('');
  });
});
