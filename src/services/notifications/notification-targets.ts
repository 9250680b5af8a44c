// Named notification targets (docs/notifications.md "Targets"): create, update, delete and list, each kind's settings
// checked against its schema, secrets sealed at rest and never returned. Kept in memory after boot (a handful of
// rows) so the committing transaction can look targets up without a query.

import { Value } from '@sinclair/typebox/value';
import { AppError } from '../../core/errors.js';
import { SecretBox } from '../../lib/secret-box.js';
import type { NotificationRepo } from '../../storage/db/notification-repo.js';
import { isTargetKind, KIND_SCHEMAS, type TargetKind } from './target-kinds.js';
import { webhookEndpointProblem } from './transports/webhook.js';

export const TARGET_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A target as the service uses it (secrets included: never leaves the server). */
export interface Target {
  id: string;
  kind: TargetKind;
  arn: string;
  /** Non-secret settings. */
  settings: Record<string, unknown>;
  secrets: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

/** A target as the admin API shows it: settings without secrets, and which secrets are set. */
export interface TargetView {
  id: string;
  kind: TargetKind;
  arn: string;
  config: Record<string, unknown>;
  secretsSet: string[];
  createdAt: string;
  updatedAt: string;
}

export interface TargetInput {
  kind: string;
  /** The kind's settings; secret fields may be omitted on update to keep the stored ones. */
  config: Record<string, unknown>;
}

export interface NotificationTargetsOptions {
  repo: NotificationRepo;
  /** Runs `fn` in one SQLite transaction. */
  transaction: <T>(fn: () => T) => T;
  encryptionSecret: string;
  region: string;
  now: () => number;
}

function validationError(message: string): AppError {
  return new AppError('ValidationError', { message });
}

export class NotificationTargets {
  private readonly byId = new Map<string, Target>();
  private readonly box: SecretBox;
  /** Told after each change (the dispatcher drops a changed target's transport). */
  private listeners: ((id: string) => void)[] = [];

  constructor(private readonly opts: NotificationTargetsOptions) {
    this.box = new SecretBox(opts.encryptionSecret);
    for (const row of opts.repo.listTargets()) {
      if (!isTargetKind(row.kind)) continue;
      const secrets =
        row.secrets === undefined
          ? {}
          : (JSON.parse(this.box.open(row.secrets, `notification-target:${row.id}`)) as Record<string, string>);
      this.byId.set(row.id, {
        id: row.id,
        kind: row.kind,
        arn: this.arnOf(row.id, row.kind),
        settings: JSON.parse(row.config) as Record<string, unknown>,
        secrets,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
      });
    }
  }

  /** `arn:store:sqs:<region>:<id>:<kind>` (docs/notifications.md "Target ARNs"). */
  arnOf(id: string, kind: TargetKind): string {
    return `arn:store:sqs:${this.opts.region}:${id}:${kind}`;
  }

  onChange(listener: (id: string) => void): void {
    this.listeners.push(listener);
  }

  get size(): number {
    return this.byId.size;
  }

  all(): Target[] {
    return [...this.byId.values()];
  }

  find(id: string): Target | undefined {
    return this.byId.get(id);
  }

  /** The target an ARN names (its kind and region must match too), or undefined. */
  findByArn(arn: string): Target | undefined {
    return [...this.byId.values()].find((t) => t.arn === arn);
  }

  get(id: string): Target {
    const target = this.byId.get(id);
    if (target === undefined) throw new AppError('NotFound', { message: `No notification target ${id}` });
    return target;
  }

  view(target: Target): TargetView {
    return {
      id: target.id,
      kind: target.kind,
      arn: target.arn,
      config: { ...target.settings },
      secretsSet: Object.keys(target.secrets).sort(),
      createdAt: new Date(target.createdAt).toISOString(),
      updatedAt: new Date(target.updatedAt).toISOString(),
    };
  }

  /** Creates a target. Throws ValidationError (id, kind or settings) and Conflict (the id exists). */
  create(id: string, input: TargetInput): Target {
    if (!TARGET_ID.test(id)) throw validationError('id: 1 to 64 letters, digits, - or _');
    if (this.byId.has(id)) throw new AppError('Conflict', { message: `Notification target ${id} exists` });
    return this.save(id, input, undefined);
  }

  /** Replaces a target's settings; secrets left out are kept (same kind only). Throws NotFound, ValidationError. */
  update(id: string, input: TargetInput): Target {
    return this.save(id, input, this.get(id));
  }

  /** Deletes a target and its outbox rows. Throws NotFound. */
  delete(id: string): void {
    this.get(id);
    this.opts.transaction(() => this.opts.repo.deleteTarget(id));
    this.byId.delete(id);
    for (const listener of this.listeners) listener(id);
  }

  private save(id: string, input: TargetInput, previous: Target | undefined): Target {
    const kind = input.kind;
    if (!isTargetKind(kind)) throw validationError(`kind: one of ${Object.keys(KIND_SCHEMAS).join(', ')}`);
    const { schema, secrets: secretNames } = KIND_SCHEMAS[kind];
    const keep = previous !== undefined && previous.kind === kind ? previous.secrets : {};
    const merged: Record<string, unknown> = { ...keep, ...input.config };
    if (!Value.Check(schema, merged)) {
      const first = Value.Errors(schema, merged).First();
      // The path names the field; the value is never echoed (it may be a secret).
      throw validationError(`config${first?.path.replace(/\//g, '.') ?? ''}: ${first?.message ?? 'invalid'}`);
    }
    if (kind === 'webhook') {
      const problem = webhookEndpointProblem(String(merged.endpoint));
      if (problem !== undefined) throw validationError(`config.${problem}`);
    }
    const settings: Record<string, unknown> = {};
    const secrets: Record<string, string> = {};
    for (const [name, value] of Object.entries(merged)) {
      if (secretNames.includes(name)) secrets[name] = String(value);
      else settings[name] = value;
    }
    const now = this.opts.now();
    const target: Target = {
      id,
      kind,
      arn: this.arnOf(id, kind),
      settings,
      secrets,
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
    const sealed =
      Object.keys(secrets).length === 0
        ? undefined
        : this.box.seal(JSON.stringify(secrets), `notification-target:${id}`);
    this.opts.transaction(() =>
      this.opts.repo.saveTarget({
        id,
        kind,
        config: JSON.stringify(settings),
        secrets: sealed,
        createdAt: target.createdAt,
        updatedAt: now,
      }),
    );
    this.byId.set(id, target);
    for (const listener of this.listeners) listener(id);
    return target;
  }
}
