// Scoped access keys: create (the secret is returned once), list, get, update, rotate, revoke, the effective
// permissions and the simulator; and, for the S3 plane's hot path, a cache of decrypted secrets and compiled
// policies that every change invalidates. Secrets are sealed at rest (lib/secret-box.ts) under KEY_ENCRYPTION_SECRET.

import { AppError, isAppError } from '../../core/errors.js';
import type { PolicyDocument } from '../../core/policy/model.js';
import { parseBucketPolicy } from '../../core/policy/policy-document.js';
import { SecretBox, SecretBoxError } from '../../lib/secret-box.js';
import type { Logger } from '../../observability/logger.js';
import { DataDirError } from '../../storage/data-dir.js';
import type { AccessKeyChanges, AccessKeyRow } from '../../storage/db/access-keys-repo.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import {
  checkSimulation,
  compilePermissions,
  effectivePermissions,
  readPermissions,
  simulate,
  validatePermissions,
  type EffectivePermissions,
  type KeyPermissions,
  type PermissionsInput,
  type SimulationRequest,
  type SimulationResult,
} from './access-key-permissions.js';
import type { BucketService } from '../bucket-service.js';
import {
  checkExpiry,
  checkName,
  generateAccessKeyId,
  generateSecret,
  toView,
  type AccessKeyView,
} from './access-key-rows.js';

export type { EffectivePermissions, KeyPermissions, PermissionsInput, SimulationRequest, SimulationResult };
export { ACCESS_KEY_ID_LENGTH, generateAccessKeyId, generateSecret, type AccessKeyView } from './access-key-rows.js';

/** A key with its secret: the one time the secret is shown (create and rotate). */
export interface IssuedKey {
  key: AccessKeyView;
  secretAccessKey: string;
}

export interface CreateKeyInput {
  name: string;
  description?: string | undefined;
  enabled?: boolean | undefined;
  permissions?: PermissionsInput | null | undefined;
  /** When the key stops working (epoch ms, in the future); absent or null: never. */
  expiresAt?: number | null | undefined;
}

export interface UpdateKeyInput {
  name?: string | undefined;
  description?: string | undefined;
  enabled?: boolean | undefined;
  /** null removes the permissions. */
  permissions?: PermissionsInput | null | undefined;
  /** A new expiry (in the future), or null for none. */
  expiresAt?: number | null | undefined;
}

/** A key made by another service for its own purpose (a share link's signing key): never listed as an access key. */
export interface InternalKeyInput {
  name: string;
  /** Validated by the caller. */
  permissions: KeyPermissions;
  expiresAt: number;
  createdBy: string;
  /** Writes the caller's own rows for the key, inside the transaction that inserts it. */
  alsoInsert: (accessKeyId: string) => void;
}

/** What the S3 plane needs to know about an enabled key. */
export interface KeyIdentity {
  accessKeyId: string;
  /** undefined: no usable permissions, so evaluate() denies everything (implicit deny). */
  identityPolicy: PolicyDocument | undefined;
}

export interface AccessKeyServiceOptions {
  meta: MetadataStore;
  buckets: BucketService;
  /** KEY_ENCRYPTION_SECRET, or ROOT_SECRET_ACCESS_KEY when that is unset. */
  encryptionSecret: string;
  /** Generated ids never equal it. */
  rootAccessKeyId: string;
  now?: () => number;
  logger?: Logger;
  /** last_used_at is written at most this often per key (default one minute): the S3 hot path rarely writes. */
  lastUsedIntervalMs?: number;
  /** Draws access key ids (default generateAccessKeyId); injectable so tests can force a collision. */
  generateId?: () => string;
}

interface CachedKey {
  enabled: boolean;
  /** undefined when the stored secret does not open (fail closed: the key cannot authenticate). */
  secret: string | undefined;
  identityPolicy: PolicyDocument | undefined;
  expiresAt: number | undefined;
  lastUsedWritten: number | undefined;
}

const notFound = (id: string): AppError => new AppError('NotFound', { message: `No access key ${id}` });

export class AccessKeyService {
  private readonly meta: MetadataStore;
  private readonly box: SecretBox;
  private readonly now: () => number;
  private readonly lastUsedIntervalMs: number;
  private readonly cache = new Map<string, CachedKey>();

  constructor(private readonly opts: AccessKeyServiceOptions) {
    this.meta = opts.meta;
    this.box = new SecretBox(opts.encryptionSecret);
    this.now = opts.now ?? Date.now;
    this.lastUsedIntervalMs = opts.lastUsedIntervalMs ?? 60_000;
  }

  /**
   * Boot check: refuses (DataDirError) a key-encryption secret other than the one the stored keys were sealed with,
   * since none of them could authenticate any more. With no keys stored, a new secret is simply adopted.
   */
  verifyEncryptionSecret(): void {
    const repo = this.meta.accessKeys;
    const stored = repo.findEncryptionCheck();
    if (stored === this.box.checkValue) return;
    if (stored !== undefined && repo.count() > 0) {
      throw new DataDirError(
        'KEY_ENCRYPTION_SECRET (or ROOT_SECRET_ACCESS_KEY, its default) is not the secret the access keys in this data ' +
          'directory were encrypted with; set KEY_ENCRYPTION_SECRET to the previous value (see docs/access-keys.md)',
      );
    }
    this.meta.transaction(() => repo.setEncryptionCheck(this.box.checkValue));
  }

  /** Creates a key. Throws ValidationError (naming the field) or MalformedPolicy for bad permissions. */
  create(input: CreateKeyInput, createdBy: string): IssuedKey {
    const now = this.now();
    return this.insertKey({
      name: checkName(input.name),
      description: input.description ?? '',
      enabled: input.enabled ?? true,
      permissions: input.permissions == null ? undefined : validatePermissions(input.permissions),
      expiresAt: input.expiresAt == null ? undefined : checkExpiry(input.expiresAt, now),
      createdBy,
    });
  }

  /** Creates a key for another service's purpose (InternalKeyInput); the secret is returned, never stored plain. */
  createInternal(input: InternalKeyInput): IssuedKey {
    return this.insertKey({ ...input, description: '', enabled: true });
  }

  /** Forgets the cached state of keys another service deleted (their next request reads the database). */
  forget(accessKeyIds: readonly string[]): void {
    for (const id of accessKeyIds) this.cache.delete(id);
  }

  private insertKey(spec: {
    name: string;
    description: string;
    enabled: boolean;
    permissions: KeyPermissions | undefined;
    expiresAt: number | undefined;
    createdBy: string;
    alsoInsert?: (accessKeyId: string) => void;
  }): IssuedKey {
    const { name, permissions, createdBy } = spec;
    const secretAccessKey = generateSecret();
    const now = this.now();
    const row = this.meta.transaction(() => {
      const draw = this.opts.generateId ?? generateAccessKeyId;
      let accessKeyId = draw();
      while (accessKeyId === this.opts.rootAccessKeyId || this.meta.accessKeys.find(accessKeyId)) accessKeyId = draw();
      const inserted: AccessKeyRow = {
        accessKeyId,
        name,
        description: spec.description,
        enabled: spec.enabled,
        secretSealed: this.box.seal(secretAccessKey, accessKeyId),
        permissions: permissions === undefined ? undefined : JSON.stringify(permissions),
        createdAt: now,
        updatedAt: now,
        createdBy,
        lastUsedAt: undefined,
        expiresAt: spec.expiresAt,
      };
      this.meta.accessKeys.insert(inserted);
      spec.alsoInsert?.(accessKeyId);
      return inserted;
    });
    this.cache.delete(row.accessKeyId);
    return { key: toView(row), secretAccessKey };
  }

  /** Every key, oldest first, without secrets. */
  list(): AccessKeyView[] {
    return this.meta.accessKeys.list().map(toView);
  }

  /** Throws NotFound. */
  get(accessKeyId: string): AccessKeyView {
    return toView(this.row(accessKeyId));
  }

  /** Changes name, description, enabled or permissions. Throws NotFound, ValidationError, MalformedPolicy. */
  update(accessKeyId: string, input: UpdateKeyInput): AccessKeyView {
    const changes: AccessKeyChanges = { updatedAt: this.now() };
    if (input.name !== undefined) changes.name = checkName(input.name);
    if (input.description !== undefined) changes.description = input.description;
    if (input.enabled !== undefined) changes.enabled = input.enabled;
    if (input.permissions !== undefined) {
      changes.permissions = input.permissions === null ? null : JSON.stringify(validatePermissions(input.permissions));
    }
    if (input.expiresAt !== undefined) {
      changes.expiresAt = input.expiresAt === null ? null : checkExpiry(input.expiresAt, changes.updatedAt);
    }
    if (Object.keys(changes).length === 1)
      throw new AppError('ValidationError', {
        message: 'body: give at least one of name, description, enabled, permissions, expiresAt',
      });
    return this.change(accessKeyId, changes);
  }

  /** A new secret, returned once; the old one stops working on the next request. Throws NotFound. */
  rotate(accessKeyId: string): IssuedKey {
    const secretAccessKey = generateSecret();
    const key = this.change(accessKeyId, {
      secretSealed: this.box.seal(secretAccessKey, accessKeyId),
      updatedAt: this.now(),
    });
    return { key, secretAccessKey };
  }

  /** Deletes the key and returns what it was (for the audit record). Throws NotFound. */
  revoke(accessKeyId: string): AccessKeyView {
    const row = this.meta.transaction(() => {
      const found = this.row(accessKeyId);
      this.meta.accessKeys.delete(accessKeyId);
      return found;
    });
    this.cache.delete(accessKeyId);
    return toView(row);
  }

  /** The policy in force (compiled from the scope when that is the form). Throws NotFound. */
  effectivePermissions(accessKeyId: string): EffectivePermissions {
    return effectivePermissions(readPermissions(this.row(accessKeyId).permissions));
  }

  /**
   * Decides one action for this key together with the bucket's current policy, as the S3 plane would (whether the key
   * is enabled is not considered). Throws NotFound, ValidationError naming action, bucket or key.
   */
  simulate(accessKeyId: string, request: SimulationRequest): SimulationResult {
    const row = this.row(accessKeyId);
    const action = checkSimulation(request);
    return simulate({
      accessKeyId,
      identityPolicy: this.compile(row),
      bucketPolicy: request.bucket === '' ? undefined : this.bucketPolicy(request.bucket),
      action,
      bucket: request.bucket,
      key: request.key,
      context: request.context,
      now: new Date(this.now()),
    });
  }

  /**
   * S3 hot path: the secret of an enabled key; undefined for an unknown, disabled, expired or revoked key (the S3
   * plane answers InvalidAccessKeyId, docs/decisions.md "An expired access key").
   */
  secretFor(accessKeyId: string): string | undefined {
    const entry = this.cached(accessKeyId);
    return entry !== undefined && this.isUsable(entry) ? entry.secret : undefined;
  }

  /** S3 hot path, after the signature verified: who the key is and its permissions; records its use. */
  identityOf(accessKeyId: string): KeyIdentity | undefined {
    const entry = this.cached(accessKeyId);
    if (entry === undefined || !this.isUsable(entry) || entry.secret === undefined) return undefined;
    const now = this.now();
    if (entry.lastUsedWritten === undefined || now - entry.lastUsedWritten >= this.lastUsedIntervalMs) {
      entry.lastUsedWritten = now;
      this.meta.transaction(() => this.meta.accessKeys.touch(accessKeyId, now));
    }
    return { accessKeyId, identityPolicy: entry.identityPolicy };
  }

  private isUsable(entry: CachedKey): boolean {
    return entry.enabled && (entry.expiresAt === undefined || this.now() < entry.expiresAt);
  }

  private cached(accessKeyId: string): CachedKey | undefined {
    const hit = this.cache.get(accessKeyId);
    if (hit !== undefined) return hit;
    const row = this.meta.accessKeys.find(accessKeyId);
    if (row === undefined) return undefined;
    const entry: CachedKey = {
      enabled: row.enabled,
      secret: this.open(row),
      identityPolicy: this.compile(row),
      expiresAt: row.expiresAt,
      lastUsedWritten: row.lastUsedAt,
    };
    this.cache.set(accessKeyId, entry);
    return entry;
  }

  private open(row: AccessKeyRow): string | undefined {
    try {
      return this.box.open(row.secretSealed, row.accessKeyId);
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      this.opts.logger?.error(
        { accessKeyId: row.accessKeyId },
        'access key secret does not decrypt; the key cannot authenticate',
      );
      return undefined;
    }
  }

  private compile(row: AccessKeyRow): PolicyDocument | undefined {
    try {
      return compilePermissions(readPermissions(row.permissions));
    } catch (err) {
      if (!isAppError(err)) throw err;
      this.opts.logger?.error(
        { accessKeyId: row.accessKeyId, code: err.code },
        'access key permissions no longer validate; denying everything',
      );
      return undefined;
    }
  }

  private bucketPolicy(bucket: string): PolicyDocument | 'unreadable' | undefined {
    let json: string | undefined;
    try {
      json = this.opts.buckets.get(bucket).config.policy;
    } catch (err) {
      if (isAppError(err) && err.code === 'NoSuchBucket') return undefined;
      throw err;
    }
    if (json === undefined) return undefined;
    try {
      return parseBucketPolicy(json, bucket);
    } catch (err) {
      if (isAppError(err)) return 'unreadable';
      throw err;
    }
  }

  private row(accessKeyId: string): AccessKeyRow {
    const row = this.meta.accessKeys.find(accessKeyId);
    // A share link's key is managed through its link (share-link-service.ts), never as an access key.
    if (row === undefined || this.meta.shareLinks.find(accessKeyId)) throw notFound(accessKeyId);
    return row;
  }

  private change(accessKeyId: string, changes: AccessKeyChanges): AccessKeyView {
    const row = this.meta.transaction(() => {
      if (!this.meta.accessKeys.update(accessKeyId, changes)) throw notFound(accessKeyId);
      return this.row(accessKeyId);
    });
    // Invalidated after the commit: the next request reads the new row (a failed transaction changed nothing).
    this.cache.delete(accessKeyId);
    return toView(row);
  }
}
