// cron-parser, loaded on first use: it and the date library under it (luxon) are about 2 MiB of heap and 0.6 MiB of
// source that a server without a backup cron schedule never needs (docs/decisions.md, "Idle memory").

import { createRequire } from 'node:module';
import type { CronExpressionParser } from 'cron-parser';

/** cron-parser's CronExpressionParser (the package is CommonJS, so a synchronous require loads it). */
export function cronParser(): typeof CronExpressionParser {
  return (createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser')).CronExpressionParser;
}
