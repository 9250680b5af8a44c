// loadConfig: a good environment boots with defaults applied; every refusal names the key and never the value.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, decodeSseKey, loadConfig } from './config.js';
import { domainList } from './domain-config.js';

const ARGON2ID = '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzYWx0$RdescudvJCsgt3ub+b+dWRWJTmaaJObGzz8hq0pSzmE';

function goodEnv(): Record<string, string> {
  return {
    DATA_DIR: '/var/lib/store',
    JWT_SECRET: randomBytes(40).toString('base64url'),
    ADMIN_PASSWORD_HASH: ARGON2ID,
    ROOT_ACCESS_KEY_ID: 'K7QX2M9RTB4WZ8LN3VPA',
    ROOT_SECRET_ACCESS_KEY: randomBytes(30).toString('base64url'),
  };
}

/** Runs loadConfig expecting a refusal; returns the message after checking that it names `key` and hides `value`. */
function refusal(overrides: Record<string, string | undefined>, key: string, value?: string): string {
  const env: Record<string, string | undefined> = { ...goodEnv(), ...overrides };
  let caught: unknown;
  try {
    loadConfig(env);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const error = caught as ConfigError;
  expect(error.message).toContain(key);
  expect(error.problems.some((p) => p.startsWith(key))).toBe(true);
  if (value !== undefined) expect(error.message).not.toContain(value);
  return error.message;
}

describe('loadConfig: a good environment', () => {
  it('accepts the required keys and applies every default', () => {
    const env = goodEnv();
    const cfg = loadConfig(env);
    expect(cfg).toMatchObject({
      DATA_DIR: '/var/lib/store',
      JWT_SECRET: env['JWT_SECRET'],
      ROOT_ACCESS_KEY_ID: 'K7QX2M9RTB4WZ8LN3VPA',
      PORT: 9000,
      HOST: '0.0.0.0',
      ADMIN_USERNAME: 'admin',
      STORE_REGION: 'us-east-1',
      SHUTDOWN_DRAIN_MS: 30_000,
      MOUNT_PATH: '',
      LOG_LEVEL: 'info',
    });
    expect(cfg.STORE_SSE_KEY).toBeUndefined();
  });

  it('parses integers and keeps explicit optional values', () => {
    const sse = randomBytes(32).toString('base64');
    const cfg = loadConfig({
      ...goodEnv(),
      PORT: '0',
      SHUTDOWN_DRAIN_MS: '1500',
      MOUNT_PATH: '/storage',
      LOG_LEVEL: 'warn',
      STORE_SSE_KEY: sse,
    });
    expect(cfg).toMatchObject({
      PORT: 0,
      SHUTDOWN_DRAIN_MS: 1500,
      MOUNT_PATH: '/storage',
      LOG_LEVEL: 'warn',
      STORE_SSE_KEY: sse,
    });
    expect(decodeSseKey(sse)?.length).toBe(32);
  });

  it('treats MOUNT_PATH "/" as the root and an empty value as unset', () => {
    expect(loadConfig({ ...goodEnv(), MOUNT_PATH: '/' }).MOUNT_PATH).toBe('');
    expect(loadConfig({ ...goodEnv(), PORT: '' }).PORT).toBe(9000);
  });

  it('accepts access key ids of 16 and 32 characters and ignores unrelated variables', () => {
    expect(
      loadConfig({ ...goodEnv(), ROOT_ACCESS_KEY_ID: 'A'.repeat(8) + '12345678' }).ROOT_ACCESS_KEY_ID,
    ).toHaveLength(16);
    expect(
      loadConfig({ ...goodEnv(), ROOT_ACCESS_KEY_ID: 'Z9'.repeat(16), UNRELATED: 'x' }).ROOT_ACCESS_KEY_ID,
    ).toHaveLength(32);
  });
});

describe('loadConfig: refusals name the key, never the value', () => {
  it.each(['DATA_DIR', 'JWT_SECRET', 'ADMIN_PASSWORD_HASH', 'ROOT_ACCESS_KEY_ID', 'ROOT_SECRET_ACCESS_KEY'])(
    'refuses when %s is missing or empty',
    (key) => {
      expect(refusal({ [key]: undefined }, key)).toMatch(/required/);
      refusal({ [key]: '' }, key);
    },
  );

  it('lists every missing key at once', () => {
    const message = refusal({ JWT_SECRET: undefined, ROOT_SECRET_ACCESS_KEY: undefined }, 'JWT_SECRET');
    expect(message).toContain('ROOT_SECRET_ACCESS_KEY');
  });

  it.each(['data/store', './store', '/var/lib/store/', 'relative'])('refuses DATA_DIR %j', (value) => {
    refusal({ DATA_DIR: value }, 'DATA_DIR', value);
  });

  const weakSecrets: Array<[string, string]> = [
    ['short', randomBytes(12).toString('base64url')],
    ['31 characters', randomBytes(40).toString('base64url').slice(0, 31)],
    ['all one character', 'k'.repeat(48)],
    ['a changeme placeholder', `changeme-${randomBytes(24).toString('base64url')}`],
    ['a CHANGEME placeholder in capitals', `CHANGEME${randomBytes(24).toString('hex')}`],
    ['the AWS documentation example secret', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['a repeated two-character pattern', 'ab'.repeat(24)],
    ['a repeated short pattern', 'abcdefg1'.repeat(5).slice(0, 7).repeat(6)],
  ];
  for (const key of ['JWT_SECRET', 'ROOT_SECRET_ACCESS_KEY'] as const) {
    it.each(weakSecrets)(`refuses ${key} that is %s`, (_label, value) => {
      refusal({ [key]: value }, key, value);
    });
  }

  it('refuses a weak KEY_ENCRYPTION_SECRET when one is set', () => {
    refusal({ KEY_ENCRYPTION_SECRET: 'changeme' }, 'KEY_ENCRYPTION_SECRET', 'changeme');
  });

  it.each([
    ['lowercase', 'k7qx2m9rtb4wz8ln3vpa'],
    ['15 characters', 'K7QX2M9RTB4WZ8L'],
    ['33 characters', 'K7QX2M9RTB4WZ8LN3VPAK7QX2M9RTB4WZ'],
    ['punctuation', 'K7QX2M9RTB4WZ8LN3VP/'],
    ['the AWS documentation example', 'AKIAIOSFODNN7EXAMPLE'],
  ])('refuses ROOT_ACCESS_KEY_ID that is %s', (_label, value) => {
    refusal({ ROOT_ACCESS_KEY_ID: value }, 'ROOT_ACCESS_KEY_ID', value);
  });

  it.each([
    ['bcrypt', '$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW'],
    ['argon2i', '$argon2i$v=19$m=65536,t=3,p=4$c29tZXNhbHRzYWx0$RdescudvJCsgt3ub+b+dWRWJTmaaJObGzz8hq0pSzmE'],
    ['argon2d', '$argon2d$v=19$m=65536,t=3,p=4$c29tZXNhbHRzYWx0$RdescudvJCsgt3ub+b+dWRWJTmaaJObGzz8hq0pSzmE'],
    ['a plain password', 'correct horse battery staple'],
  ])('refuses ADMIN_PASSWORD_HASH that is %s', (_label, value) => {
    refusal({ ADMIN_PASSWORD_HASH: value }, 'ADMIN_PASSWORD_HASH', value);
  });

  it.each([
    ['31 bytes', randomBytes(31).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['not base64', `!!${randomBytes(30).toString('hex')}`],
    ['base64 with non-canonical padding bits', `${randomBytes(32).toString('base64').slice(0, -2)}B=`],
  ])('refuses STORE_SSE_KEY of %s', (_label, value) => {
    refusal({ STORE_SSE_KEY: value }, 'STORE_SSE_KEY', value);
  });

  it('defaults STORE_DEFAULT_OBJECT_OWNERSHIP to BucketOwnerEnforced, takes the other two, refuses anything else', () => {
    expect(loadConfig(goodEnv()).STORE_DEFAULT_OBJECT_OWNERSHIP).toBe('BucketOwnerEnforced');
    expect(
      loadConfig({ ...goodEnv(), STORE_DEFAULT_OBJECT_OWNERSHIP: 'ObjectWriter' }).STORE_DEFAULT_OBJECT_OWNERSHIP,
    ).toBe('ObjectWriter');
    refusal({ STORE_DEFAULT_OBJECT_OWNERSHIP: 'public' }, 'STORE_DEFAULT_OBJECT_OWNERSHIP');
  });

  it('refuses LOG_LEVEL verbose', () => {
    refusal({ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', 'verbose');
  });

  it.each(['70000', 'abc', '80.5', '1e3', '0x10', '-1', ' 9000'])('refuses PORT %j', (value) => {
    refusal({ PORT: value }, 'PORT');
  });

  it.each(['1.5', 'soon', '-5', '3600001'])('refuses SHUTDOWN_DRAIN_MS %j', (value) => {
    refusal({ SHUTDOWN_DRAIN_MS: value }, 'SHUTDOWN_DRAIN_MS');
  });

  it.each(['storage', '/storage/', '/a/../b', '/a/./b', '/a//b', '/stor age', '/%2e%2e'])(
    'refuses MOUNT_PATH %j',
    (value) => {
      refusal({ MOUNT_PATH: value }, 'MOUNT_PATH');
    },
  );

  it('reports every bad key of one environment, not only the first', () => {
    const jwt = 'x'.repeat(40);
    const message = refusal(
      { JWT_SECRET: jwt, MOUNT_PATH: 'storage', ADMIN_PASSWORD_HASH: 'nope-not-a-hash' },
      'JWT_SECRET',
      jwt,
    );
    expect(message).toContain('MOUNT_PATH');
    expect(message).toContain('ADMIN_PASSWORD_HASH');
    expect(message).not.toContain('nope-not-a-hash');
  });
});

describe('loadConfig: admin plane keys (trusted proxies, audit)', () => {
  it('defaults to no trusted proxies, a 2 s audit flush and 90 days of audit', () => {
    expect(loadConfig(goodEnv())).toMatchObject({
      STORE_TRUSTED_PROXIES: '',
      AUDIT_FLUSH_MS: 2000,
      AUDIT_RETENTION_DAYS: 90,
    });
  });

  it('accepts addresses and CIDR blocks of both families', () => {
    const cfg = loadConfig({
      ...goodEnv(),
      STORE_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1,::1,fd00::/8, ::ffff:10.0.0.0/104',
    });
    expect(cfg.STORE_TRUSTED_PROXIES).toContain('fd00::/8');
  });

  it.each([
    '10.0.0.300',
    '10.0.0.0/33',
    'fd00::/129',
    'proxy.internal',
    '10.0.0.0/8/1',
    '10.0.0.1/',
    '10.0.0.1/x',
    'fe80::1%eth0',
    '010.0.0.1',
  ])('refuses the entry %s, naming it', (entry) => {
    const message = refusal({ STORE_TRUSTED_PROXIES: `10.0.0.1, ${entry}` }, 'STORE_TRUSTED_PROXIES');
    expect(message).toContain(entry);
  });

  it('keeps AUDIT_FLUSH_MS and AUDIT_RETENTION_DAYS in bounds', () => {
    refusal({ AUDIT_FLUSH_MS: '249' }, 'AUDIT_FLUSH_MS');
    refusal({ AUDIT_FLUSH_MS: '600001' }, 'AUDIT_FLUSH_MS');
    refusal({ AUDIT_RETENTION_DAYS: '0' }, 'AUDIT_RETENTION_DAYS');
    refusal({ AUDIT_RETENTION_DAYS: '1.5' }, 'AUDIT_RETENTION_DAYS');
    expect(loadConfig({ ...goodEnv(), AUDIT_FLUSH_MS: '250', AUDIT_RETENTION_DAYS: '1' })).toMatchObject({
      AUDIT_FLUSH_MS: 250,
      AUDIT_RETENTION_DAYS: 1,
    });
  });
});

describe('loadConfig: STORE_DOMAIN (virtual-hosted–style addressing)', () => {
  it('is empty by default (path-style only) and keeps a list of DNS names', () => {
    expect(loadConfig(goodEnv()).STORE_DOMAIN).toBe('');
    const cfg = loadConfig({ ...goodEnv(), STORE_DOMAIN: 'S3.Example.com, localhost,s3.internal' });
    expect(domainList(cfg.STORE_DOMAIN)).toEqual(['s3.example.com', 'localhost', 's3.internal']);
  });

  it.each([
    's3.example.com:9000',
    'http://s3.example.com',
    's3.example.com/x',
    '127.0.0.1',
    '::1',
    's3..example.com',
    's3.example.com.',
    '-s3.example.com',
    'a_b.example.com',
  ])('refuses the entry %s, naming it', (entry) => {
    const message = refusal({ STORE_DOMAIN: `s3.example.com, ${entry}` }, 'STORE_DOMAIN');
    expect(message).toContain(entry.toLowerCase());
  });
});
