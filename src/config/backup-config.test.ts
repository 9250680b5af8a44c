// The backup keys' boot refusals (SPEC "Errors" 3): an invalid cron expression, both or neither of cron and interval.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { backupSchedule, cronProblem } from './backup-config.js';

const base = {
  DATA_DIR: '/var/lib/store', JWT_SECRET: randomBytes(40).toString('base64url'), ROOT_ACCESS_KEY_ID: 'AKQ3ZP7X2MRN4TVB8W5Y',
  ROOT_SECRET_ACCESS_KEY: randomBytes(30).toString('base64url'),
  ADMIN_PASSWORD_HASH: '$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHRzYWx0$RdescudvJCsgt3ub+b+dWRWJTmaaJObGzz8hq0pSzmE',
};
const problems = (env: Record<string, string>): string[] => {
  try {
    loadConfig({ ...base, ...env });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
};
const on = { STORE_SCHEDULED_BACKUP_ENABLED: 'true', STORE_SCHEDULED_BACKUP_SCOPE: 'instance' };

describe('scheduled backup configuration', () => {
  it('defaults: off, keep 7, 30 days, restore caps from the spec', () => {
    const cfg = loadConfig(base);
    expect(backupSchedule(cfg)).toBeUndefined();
    expect(cfg).toMatchObject({
      STORE_SCHEDULED_BACKUP_KEEP_LAST: 7, STORE_SCHEDULED_BACKUP_MAX_AGE_DAYS: 30, STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION: false,
      RESTORE_MAX_TOTAL_BYTES: 100 * 1024 ** 3, RESTORE_MAX_ENTRY_BYTES: 5 * 1024 ** 3, RESTORE_MAX_ENTRIES: 1_000_000, RESTORE_MAX_MANIFEST_BYTES: 4 * 1024 ** 2,
    });
  });

  it('accepts exactly one of cron and interval', () => {
    expect(backupSchedule(loadConfig({ ...base, ...on, STORE_SCHEDULED_BACKUP_CRON: '0 3 * * *' }))).toEqual({ cron: '0 3 * * *' });
    expect(backupSchedule(loadConfig({ ...base, ...on, STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '90' }))).toEqual({ intervalMinutes: 90 });
  });

  it('refuses both, and neither', () => {
    expect(problems({ ...on, STORE_SCHEDULED_BACKUP_CRON: '0 3 * * *', STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '60' }).join()).toMatch(/exactly one of STORE_SCHEDULED_BACKUP_CRON/);
    expect(problems(on).join()).toMatch(/exactly one of STORE_SCHEDULED_BACKUP_CRON/);
  });

  it.each(['61 * * * *', 'every day', '* * * *', '0 0 * * * *', '0 25 * * *'])('refuses the cron expression %j', (cron) => {
    expect(cronProblem(cron)).toMatch(/STORE_SCHEDULED_BACKUP_CRON/);
    expect(problems({ ...on, STORE_SCHEDULED_BACKUP_CRON: cron }).join()).toMatch(/STORE_SCHEDULED_BACKUP_CRON/);
  });

  it('refuses a missing scope, an interval out of range, a relative directory; accepts byte caps beyond 10 digits', () => {
    expect(problems({ STORE_SCHEDULED_BACKUP_ENABLED: 'true', STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '60' }).join()).toMatch(/STORE_SCHEDULED_BACKUP_SCOPE/);
    expect(problems({ ...on, STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '4' }).join()).toMatch(/STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES/);
    expect(problems({ STORE_SCHEDULED_BACKUP_DIR: 'backups' }).join()).toMatch(/STORE_SCHEDULED_BACKUP_DIR/);
    expect(loadConfig({ ...base, RESTORE_MAX_TOTAL_BYTES: '214748364800' }).RESTORE_MAX_TOTAL_BYTES).toBe(200 * 1024 ** 3);
  });
});
