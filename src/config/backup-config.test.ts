// The backup keys' boot refusals (SPEC "Errors" 3): an invalid cron expression, both or neither of cron and interval.

import { describe, expect, it } from 'vitest';
import { configEnv, configProblems as problems } from '../../test/helpers/config-env.js';
import { loadConfig } from './config.js';
import { backupSchedule, cronProblem } from './backup-config.js';

const on = { STORE_SCHEDULED_BACKUP_ENABLED: 'true', STORE_SCHEDULED_BACKUP_SCOPE: 'instance' };

describe('scheduled backup configuration', () => {
  it('defaults: off, keep 7, 30 days, restore caps from the spec', () => {
    const cfg = loadConfig(configEnv());
    expect(backupSchedule(cfg)).toBeUndefined();
    expect(cfg).toMatchObject({
      STORE_SCHEDULED_BACKUP_KEEP_LAST: 7,
      STORE_SCHEDULED_BACKUP_MAX_AGE_DAYS: 30,
      STORE_SCHEDULED_BACKUP_PUSH_TO_REPLICATION: false,
      RESTORE_MAX_TOTAL_BYTES: 100 * 1024 ** 3,
      RESTORE_MAX_ENTRY_BYTES: 5 * 1024 ** 3,
      RESTORE_MAX_ENTRIES: 1_000_000,
      RESTORE_MAX_MANIFEST_BYTES: 4 * 1024 ** 2,
    });
  });

  it('accepts exactly one of cron and interval', () => {
    expect(backupSchedule(loadConfig(configEnv({ ...on, STORE_SCHEDULED_BACKUP_CRON: '0 3 * * *' })))).toEqual({
      cron: '0 3 * * *',
    });
    expect(backupSchedule(loadConfig(configEnv({ ...on, STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '90' })))).toEqual({
      intervalMinutes: 90,
    });
  });

  it('refuses both, and neither', () => {
    expect(
      problems({
        ...on,
        STORE_SCHEDULED_BACKUP_CRON: '0 3 * * *',
        STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '60',
      }).join(),
    ).toMatch(/exactly one of STORE_SCHEDULED_BACKUP_CRON/);
    expect(problems(on).join()).toMatch(/exactly one of STORE_SCHEDULED_BACKUP_CRON/);
  });

  it.each(['61 * * * *', 'every day', '* * * *', '0 0 * * * *', '0 25 * * *'])(
    'refuses the cron expression %j',
    (cron) => {
      expect(cronProblem(cron)).toMatch(/STORE_SCHEDULED_BACKUP_CRON/);
      expect(problems({ ...on, STORE_SCHEDULED_BACKUP_CRON: cron }).join()).toMatch(/STORE_SCHEDULED_BACKUP_CRON/);
    },
  );

  it('refuses a missing scope, an interval out of range, a relative directory; accepts byte caps beyond 10 digits', () => {
    expect(
      problems({ STORE_SCHEDULED_BACKUP_ENABLED: 'true', STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '60' }).join(),
    ).toMatch(/STORE_SCHEDULED_BACKUP_SCOPE/);
    expect(problems({ ...on, STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES: '4' }).join()).toMatch(
      /STORE_SCHEDULED_BACKUP_INTERVAL_MINUTES/,
    );
    expect(problems({ STORE_SCHEDULED_BACKUP_DIR: 'backups' }).join()).toMatch(/STORE_SCHEDULED_BACKUP_DIR/);
    expect(loadConfig(configEnv({ RESTORE_MAX_TOTAL_BYTES: '214748364800' })).RESTORE_MAX_TOTAL_BYTES).toBe(
      200 * 1024 ** 3,
    );
  });
});
