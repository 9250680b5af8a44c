// The backup keys of the environment schema (SPEC "Tiering and scheduled backup configuration", "Limits": restore
// guard rails) and their boot refusals: an invalid cron expression, both or neither of cron and interval, a missing
// scope, a relative snapshot directory.

import { isAbsolute } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { cronParser } from '../lib/cron.js';

const GiB = 1024 ** 3;

export const BACKUP_KEYS = {
  STORE_SCHEDULED_BACKUP_ENABLED: Type.Boolean({
    default: false,
    description: 'true turns the scheduled backup runner on',
  }),
  STORE_SCHEDULED_BACKUP_SCOPE: Type.Optional(
    Type.Union([Type.Literal('instance'), Type.Literal('buckets')], {
      description: 'instance (one snapshot) or buckets (one .zip per bucket); required when scheduled backups are on',
    }),
  ),
  STORE_SCHEDULED_BACKUP_CRON: Type.Optional(
    Type.String({ description: 'A 5-field cron expression (UTC); exclusive with the interval' }),
  ),
  STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: Type.Optional(
    Type.Integer({
      minimum: 5,
      maximum: 43_200,
      description: 'Fixed interval in minutes (5 to 43,200); exclusive with the cron expression',
    }),
  ),
  STORE_SCHEDULED_BACKUP_KEEP_LAST: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 7,
    description: 'Newest N snapshots always kept (1 to 10,000)',
  }),
  STORE_SCHEDULED_BACKUP_MAX_AGE_DAYS: Type.Integer({
    minimum: 0,
    maximum: 36_500,
    default: 30,
    description: 'Snapshots younger than this are also kept (0 to 36,500)',
  }),
  STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION: Type.Boolean({
    default: false,
    description: 'Copy each finished snapshot to the replication target',
  }),
  STORE_SCHEDULED_BACKUP_DIR: Type.Optional(
    Type.String({ description: 'Absolute snapshot directory (default DATA_DIR/backups)' }),
  ),
  RESTORE_MAX_TOTAL_BYTES: Type.Integer({
    minimum: 1,
    maximum: 2 ** 50,
    default: 100 * GiB,
    description: 'Largest restore archive accepted, in bytes (default 100 GiB)',
  }),
  RESTORE_MAX_ENTRY_BYTES: Type.Integer({
    minimum: 1,
    maximum: 2 ** 50,
    default: 5 * GiB,
    description: 'Largest single archive entry, uncompressed, in bytes (default 5 GiB)',
  }),
  RESTORE_MAX_ENTRIES: Type.Integer({
    minimum: 1,
    maximum: 100_000_000,
    default: 1_000_000,
    description: 'Most entries an archive may hold (default 1,000,000)',
  }),
  RESTORE_MAX_MANIFEST_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 1024 ** 3,
    default: 4 * 1024 * 1024,
    description: 'Largest manifest.json, in bytes (default 4 MiB)',
  }),
};

const BackupConfig = Type.Object({ DATA_DIR: Type.String(), ...BACKUP_KEYS });
type BackupConfig = Static<typeof BackupConfig>;

/** Why a cron expression is refused, or undefined. Five fields (minute hour day-of-month month day-of-week), UTC. */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5)
    return 'STORE_SCHEDULED_BACKUP_CRON must have 5 fields (minute hour day-of-month month day-of-week)';
  try {
    cronParser().parse(expression, { tz: 'UTC', strict: false });
    return undefined;
  } catch (err) {
    // The parser's message names the field and the rule, not a secret: pass it on so the operator can fix it.
    return `STORE_SCHEDULED_BACKUP_CRON is not a valid cron expression (${(err as Error).message})`;
  }
}

/** The boot refusals of the backup keys. */
export function backupProblems(cfg: BackupConfig): string[] {
  const problems: string[] = [];
  const cron = cfg.STORE_SCHEDULED_BACKUP_CRON;
  if (cron !== undefined) {
    const problem = cronProblem(cron);
    if (problem) problems.push(problem);
  }
  if (cfg.STORE_SCHEDULED_BACKUP_ENABLED) {
    const hasInterval = cfg.STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES !== undefined;
    if ((cron !== undefined) === hasInterval) {
      problems.push(
        'exactly one of STORE_SCHEDULED_BACKUP_CRON and STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES must be set when STORE_SCHEDULED_BACKUP_ENABLED is true',
      );
    }
    if (cfg.STORE_SCHEDULED_BACKUP_SCOPE === undefined) {
      problems.push(
        'STORE_SCHEDULED_BACKUP_SCOPE (instance or buckets) is required when STORE_SCHEDULED_BACKUP_ENABLED is true',
      );
    }
  }
  const dir = cfg.STORE_SCHEDULED_BACKUP_DIR;
  if (dir !== undefined && (!isAbsolute(dir) || (dir.length > 1 && dir.endsWith('/')))) {
    problems.push('STORE_SCHEDULED_BACKUP_DIR must be an absolute path without a trailing slash');
  }
  return problems;
}

/** The schedule as the scheduler takes it, or undefined when scheduled backups are off. Call after validation. */
export function backupSchedule(cfg: BackupConfig): { cron: string } | { intervalMinutes: number } | undefined {
  if (!cfg.STORE_SCHEDULED_BACKUP_ENABLED) return undefined;
  if (cfg.STORE_SCHEDULED_BACKUP_CRON !== undefined) return { cron: cfg.STORE_SCHEDULED_BACKUP_CRON.trim() };
  return { intervalMinutes: cfg.STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES ?? 60 };
}
