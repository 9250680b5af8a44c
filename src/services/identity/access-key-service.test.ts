import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codeOf } from '../../../test/helpers/error-code.js';
import { scopePolicyJson } from '../../core/policy/scoped-key.js';
import { SecretBox } from '../../lib/secret-box.js';
import { DataDirError } from '../../storage/data-dir.js';
import { MetadataStore } from '../../storage/db/metadata-store.js';
import { AccessKeyService, generateAccessKeyId, type AccessKeyServiceOptions } from './access-key-service.js';
import { BucketService } from '../bucket-service.js';
import { ShareLinkService } from './share-link-service.js';

const ENC = 'key-encryption-secret-for-unit-tests-0123456789';
const ROOT = 'ROOTKEYID0123456789A';

let dir: string;
let meta: MetadataStore;
let buckets: BucketService;
let clock: number;

function service(extra: Partial<AccessKeyServiceOptions> = {}): AccessKeyService {
  return new AccessKeyService({
    meta,
    buckets,
    encryptionSecret: ENC,
    rootAccessKeyId: ROOT,
    now: () => clock,
    ...extra,
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'access-keys-'));
  meta = MetadataStore.open(join(dir, 'meta.db'));
  buckets = new BucketService({ meta, region: 'us-east-1' });
  clock = Date.parse('2025-01-01T00:00:00Z');
});

afterEach(async () => {
  await meta.close();
  rmSync(dir, { recursive: true, force: true });
});

const photos = { scope: { bucket: 'media', prefix: 'photos/' } };

describe('creating and reading keys', () => {
  it('issues a 20-character id and a 40-character secret, shown only once', () => {
    const keys = service();
    const { key, secretAccessKey } = keys.create({ name: ' uploader ', permissions: photos }, 'admin');
    expect(key.accessKeyId).toMatch(/^[A-Z0-9]{20}$/);
    expect(secretAccessKey).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(key).toMatchObject({
      name: 'uploader',
      description: '',
      enabled: true,
      createdBy: 'admin',
      permissions: photos,
      lastUsedAt: undefined,
    });
    for (const shown of [keys.list(), keys.get(key.accessKeyId)])
      expect(JSON.stringify(shown)).not.toContain(secretAccessKey);
    expect(keys.list().map((k) => k.accessKeyId)).toEqual([key.accessKeyId]);
  });

  it('stores the secret sealed and bound to the key id', () => {
    const { key, secretAccessKey } = service().create({ name: 'k' }, 'admin');
    const row = meta.accessKeys.find(key.accessKeyId);
    expect(row?.secretSealed.includes(Buffer.from(secretAccessKey))).toBe(false);
    expect(new SecretBox(ENC).open(row?.secretSealed ?? Buffer.alloc(0), key.accessKeyId)).toBe(secretAccessKey);
  });

  it('never issues the root key id or an id already in use', () => {
    const first = service().create({ name: 'a' }, 'admin').key.accessKeyId;
    const ids = [ROOT, first, 'FRESHKEYID0123456789'];
    const created = service({ generateId: () => ids.shift() ?? 'UNEXPECTED' }).create({ name: 'b' }, 'admin');
    expect(created.key.accessKeyId).toBe('FRESHKEYID0123456789');
  });

  it('draws ids uniformly from uppercase letters and digits', () => {
    const seen = new Set(Array.from({ length: 200 }, () => generateAccessKeyId()).join(''));
    expect([...seen].every((c) => /[A-Z0-9]/.test(c))).toBe(true);
    expect(seen.size).toBe(36);
  });

  it('refuses bad input naming the field, and malformed policies', () => {
    const keys = service();
    const fails = (input: Parameters<AccessKeyService['create']>[0]) => {
      try {
        keys.create(input, 'admin');
      } catch (err) {
        return { code: (err as { code: string }).code, message: (err as Error).message };
      }
      return undefined;
    };
    expect(fails({ name: '   ' })).toMatchObject({ code: 'ValidationError', message: expect.stringContaining('name') });
    expect(fails({ name: 'k', permissions: {} })).toMatchObject({
      code: 'ValidationError',
      message: expect.stringContaining('permissions'),
    });
    expect(fails({ name: 'k', permissions: { ...photos, policy: {} } })).toMatchObject({ code: 'ValidationError' });
    expect(fails({ name: 'k', permissions: { scope: { bucket: 'Bad_Bucket' } } })).toMatchObject({
      code: 'ValidationError',
      message: expect.stringContaining('permissions.scope.bucket'),
    });
    expect(fails({ name: 'k', permissions: { scope: { bucket: 'media', actions: [] } } })).toMatchObject({
      code: 'ValidationError',
      message: expect.stringContaining('permissions.scope.actions'),
    });
    expect(fails({ name: 'k', permissions: { policy: '{not json' } })).toMatchObject({ code: 'MalformedPolicy' });
    expect(
      fails({
        name: 'k',
        permissions: {
          policy: { Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: '*' }] },
        },
      }),
    ).toMatchObject({ code: 'MalformedPolicy' });
    expect(
      fails({
        name: 'k',
        permissions: { policy: { Statement: [{ Effect: 'Allow', Action: 'ec2:Run', Resource: '*' }] } },
      }),
    ).toMatchObject({ code: 'MalformedPolicy' });
    expect(keys.list()).toEqual([]);
  });

  it('answers NotFound for an unknown key everywhere', () => {
    const keys = service();
    const id = 'NOSUCHKEY00000000000';
    expect(codeOf(() => keys.get(id))).toBe('NotFound');
    expect(codeOf(() => keys.update(id, { name: 'x' }))).toBe('NotFound');
    expect(codeOf(() => keys.rotate(id))).toBe('NotFound');
    expect(codeOf(() => keys.revoke(id))).toBe('NotFound');
    expect(codeOf(() => keys.effectivePermissions(id))).toBe('NotFound');
    expect(codeOf(() => keys.simulate(id, { action: 's3:GetObject', bucket: 'media', key: 'a' }))).toBe('NotFound');
  });
});

describe('updates', () => {
  it('changes only what is given, and refuses an empty update', () => {
    const keys = service();
    const { key } = keys.create({ name: 'k', description: 'd', permissions: photos }, 'admin');
    clock += 1000;
    const updated = keys.update(key.accessKeyId, { description: 'new' });
    expect(updated).toMatchObject({
      name: 'k',
      description: 'new',
      enabled: true,
      permissions: photos,
      updatedAt: clock,
    });
    expect(keys.update(key.accessKeyId, { permissions: null }).permissions).toBeNull();
    expect(codeOf(() => keys.update(key.accessKeyId, {}))).toBe('ValidationError');
  });

  it('stores an inline policy given as JSON text as the document itself', () => {
    const keys = service();
    const policy = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*', Resource: '*' }] };
    const { key } = keys.create({ name: 'k', permissions: { policy: JSON.stringify(policy, null, 2) } }, 'admin');
    expect(key.permissions).toEqual({ policy });
  });
});

describe('the S3 hot path cache', () => {
  it('answers the secret and identity of an enabled key, nothing for unknown ones', () => {
    const keys = service();
    const { key, secretAccessKey } = keys.create({ name: 'k', permissions: photos }, 'admin');
    expect(keys.secretFor(key.accessKeyId)).toBe(secretAccessKey);
    expect(keys.identityOf(key.accessKeyId)?.identityPolicy?.statements.map((s) => s.sid)).toEqual([
      'ScopeBucketLocation',
      'ScopeObjects',
      'ScopeList',
    ]);
    expect(keys.secretFor('UNKNOWNKEY0000000000')).toBeUndefined();
    expect(keys.identityOf('UNKNOWNKEY0000000000')).toBeUndefined();
  });

  it('serves repeated lookups from memory', () => {
    const keys = service();
    const { key, secretAccessKey } = keys.create({ name: 'k' }, 'admin');
    expect(keys.secretFor(key.accessKeyId)).toBe(secretAccessKey);
    // A change made behind the service's back is not seen: the hot path did not read the database again.
    meta.accessKeys.update(key.accessKeyId, { enabled: false, updatedAt: clock });
    expect(keys.secretFor(key.accessKeyId)).toBe(secretAccessKey);
  });

  it('sees a rotation, a disable, a permission change and a revocation on the very next lookup', () => {
    const keys = service();
    const { key, secretAccessKey } = keys.create({ name: 'k', permissions: photos }, 'admin');
    const id = key.accessKeyId;
    expect(keys.secretFor(id)).toBe(secretAccessKey);

    const rotated = keys.rotate(id).secretAccessKey;
    expect(rotated).not.toBe(secretAccessKey);
    expect(keys.secretFor(id)).toBe(rotated);

    keys.update(id, {
      permissions: { policy: { Statement: [{ Sid: 'Only', Effect: 'Allow', Action: 's3:GetObject', Resource: '*' }] } },
    });
    expect(keys.identityOf(id)?.identityPolicy?.statements.map((s) => s.sid)).toEqual(['Only']);

    keys.update(id, { enabled: false });
    expect(keys.secretFor(id)).toBeUndefined();
    expect(keys.identityOf(id)).toBeUndefined();
    keys.update(id, { enabled: true });
    expect(keys.secretFor(id)).toBe(rotated);

    keys.revoke(id);
    expect(keys.secretFor(id)).toBeUndefined();
    expect(keys.identityOf(id)).toBeUndefined();
  });

  it('fails closed when a sealed secret was moved to another key (the AAD binds it to its id)', () => {
    const keys = service();
    const a = keys.create({ name: 'a' }, 'admin').key.accessKeyId;
    const b = keys.create({ name: 'b' }, 'admin').key.accessKeyId;
    const sealedA = meta.accessKeys.find(a)?.secretSealed ?? Buffer.alloc(0);
    meta.accessKeys.update(b, { secretSealed: sealedA, updatedAt: clock });
    expect(service().secretFor(b)).toBeUndefined();
    expect(service().secretFor(a)).toBeDefined();
  });

  it('records the last use at most once per interval', () => {
    const keys = service({ lastUsedIntervalMs: 60_000 });
    const id = keys.create({ name: 'k' }, 'admin').key.accessKeyId;
    keys.identityOf(id);
    const first = clock;
    clock += 30_000;
    keys.identityOf(id);
    expect(keys.get(id).lastUsedAt).toBe(first);
    clock += 30_000;
    keys.identityOf(id);
    expect(keys.get(id).lastUsedAt).toBe(clock);
  });
});

describe('the key-encryption secret at boot', () => {
  it('adopts a new secret while no key exists, and refuses one that cannot open the stored keys', () => {
    service().verifyEncryptionSecret();
    const other = service({ encryptionSecret: `${ENC}-changed` });
    other.verifyEncryptionSecret(); // no keys yet: adopted
    other.create({ name: 'k' }, 'admin');
    expect(() => service().verifyEncryptionSecret()).toThrow(DataDirError);
    expect(() => other.verifyEncryptionSecret()).not.toThrow();
  });
});

describe('effective permissions', () => {
  it('shows the policy compiled from a scope, an inline policy as given, and null for none', () => {
    const keys = service();
    const scoped = keys.create({ name: 's', permissions: photos }, 'admin').key.accessKeyId;
    expect(keys.effectivePermissions(scoped)).toEqual({
      form: 'scope',
      scope: photos.scope,
      policy: scopePolicyJson(photos.scope),
    });
    const policy = { Statement: [{ Effect: 'Deny', Action: 's3:*', Resource: '*' }] };
    const inline = keys.create({ name: 'p', permissions: { policy } }, 'admin').key.accessKeyId;
    expect(keys.effectivePermissions(inline)).toEqual({ form: 'policy', policy });
    const none = keys.create({ name: 'n' }, 'admin').key.accessKeyId;
    expect(keys.effectivePermissions(none)).toEqual({ form: 'none', policy: null });
  });
});

describe('expiry and share-link keys', () => {
  it('stops authenticating at the expiry instant and works again once the expiry is moved or cleared', () => {
    const keys = service();
    const { key, secretAccessKey } = keys.create({ name: 'k', permissions: photos, expiresAt: clock + 1000 }, 'a');
    expect(key.expiresAt).toBe(clock + 1000);
    clock += 999;
    expect(keys.secretFor(key.accessKeyId)).toBe(secretAccessKey);
    clock += 1;
    expect(keys.secretFor(key.accessKeyId)).toBeUndefined();
    expect(keys.identityOf(key.accessKeyId)).toBeUndefined();
    keys.update(key.accessKeyId, { expiresAt: clock + 60_000 });
    expect(keys.secretFor(key.accessKeyId)).toBe(secretAccessKey);
    keys.update(key.accessKeyId, { expiresAt: null });
    clock += 10 * 365 * 86_400_000;
    expect(keys.secretFor(key.accessKeyId)).toBe(secretAccessKey);
  });

  it('refuses an expiry that is not in the future', () => {
    const keys = service();
    expect(codeOf(() => keys.create({ name: 'k', expiresAt: clock }, 'a'))).toBe('ValidationError');
    const { key } = keys.create({ name: 'k' }, 'a');
    expect(codeOf(() => keys.update(key.accessKeyId, { expiresAt: clock - 1 }))).toBe('ValidationError');
  });

  it('keeps the keys of share links out of the access keys, and forgets them once deleted', () => {
    const keys = service();
    const shares = new ShareLinkService({ meta, keys, now: () => clock });
    const { link, secretAccessKey } = shares.create({
      bucket: 'media',
      key: 'a.txt',
      method: 'GET',
      expiresIn: 60,
      createdBy: 'a',
    });
    expect(keys.list()).toEqual([]);
    expect(codeOf(() => keys.get(link.accessKeyId))).toBe('NotFound');
    expect(keys.secretFor(link.accessKeyId)).toBe(secretAccessKey);
    clock += 60_000;
    expect(keys.secretFor(link.accessKeyId)).toBeUndefined();
    expect(shares.sweep()).toBe(1);
    expect(meta.accessKeys.find(link.accessKeyId)).toBeUndefined();
  });
});
