// The scheduled-backup loop: wakes every tick (60 s by default) and lets the scheduler start a run when one is due.
// The run itself is not awaited here, so a long backup never holds up the loop or shutdown's stop().

import type { Logger } from '../observability/logger.js';
import type { BackupScheduler } from '../services/backup/backup-scheduler.js';
import { startLoop, type RunningLoop } from './runner.js';

export function startBackupScheduleWorker(opts: {
  scheduler: BackupScheduler;
  tickMs: number;
  logger: Logger;
}): RunningLoop {
  return startLoop({
    name: 'backup-schedule',
    intervalMs: opts.tickMs,
    logger: opts.logger,
    tick: async () => opts.scheduler.tick(),
  });
}
