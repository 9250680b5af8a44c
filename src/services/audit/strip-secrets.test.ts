import { describe, expect, it } from 'vitest';
import { isSecretName, REDACTED, stripSecrets } from './strip-secrets.js';

describe('isSecretName', () => {
  it.each([
    'password',
    'newPassword',
    'currentPassword',
    'temporaryPassword',
    'secret',
    'secretAccessKey',
    'SecretAccessKey',
    'token',
    'accessToken',
    'refreshToken',
    'authorization',
    'Authorization',
    'cookie',
    'set-cookie',
    'KEY_ENCRYPTION_SECRET',
    'keyEncryptionSecret',
    'x-amz-security-token',
    'credentials',
    'signature',
    'X-Amz-Signature',
    'privateKey',
    'api_key',
    'passwordHash',
    'pwd',
    'STORE_SSE_KEY',
  ])('%s is secret', (name) => expect(isSecretName(name)).toBe(true));

  it.each([
    'key',
    'accessKeyId',
    'keyId',
    'bucket',
    'username',
    'role',
    'versionId',
    'prefix',
    'name',
    'permissions',
    'event',
  ])('%s is not secret', (name) => expect(isSecretName(name)).toBe(false));
});

describe('stripSecrets', () => {
  it('removes secret fields at every depth, in arrays too, and keeps the rest', () => {
    const input = {
      key: 'photos/a.jpg',
      accessKeyId: 'AKIA1',
      secretAccessKey: 's3cr3t',
      nested: { password: 'p', ok: 1, deeper: [{ token: 't', keep: true }, { cookie: 'c' }] },
    };
    expect(stripSecrets(input)).toEqual({
      key: 'photos/a.jpg',
      accessKeyId: 'AKIA1',
      nested: { ok: 1, deeper: [{ keep: true }, {}] },
    });
  });

  it('redacts credential-shaped values under innocent names', () => {
    const out = stripSecrets({
      header: 'Bearer abc.def.ghi',
      note: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig',
      stored: '$argon2id$v=19$m=65536,t=3,p=4$salt$hash',
      sigv4: 'AWS4-HMAC-SHA256 Credential=AKIA/20250101/us-east-1/s3/aws4_request, Signature=abc',
      plain: 'hello',
    });
    expect(out).toEqual({ header: REDACTED, note: REDACTED, stored: REDACTED, sigv4: REDACTED, plain: 'hello' });
  });

  it('does not mutate its input', () => {
    const input = { password: 'p', a: { token: 't' } };
    stripSecrets(input);
    expect(input).toEqual({ password: 'p', a: { token: 't' } });
  });

  it('cuts deep nesting and drops non-JSON values', () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 20; i++) deep = { next: deep };
    expect(JSON.stringify(stripSecrets(deep))).toContain('[truncated]');
    expect(stripSecrets({ f: () => 1, s: Symbol('x'), u: undefined, n: 10n, d: new Date(0) })).toEqual({
      n: '10',
      d: '1970-01-01T00:00:00.000Z',
    });
  });
});
