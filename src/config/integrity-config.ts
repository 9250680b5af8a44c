// The integrity scrubber's keys of the environment schema (docs/integrity-analytics.md): on/off, the tick, and how
// much each tick may read, so a scrub never starves client requests; plus how long analytics history is kept.

import { Type } from '@sinclair/typebox';

export const INTEGRITY_KEYS = {
  STORE_INTEGRITY_SCRUB_ENABLED: Type.Boolean({
    default: false,
    description: 'true or false: scrub every object version in the background (manual passes work either way)',
  }),
  STORE_INTEGRITY_SCRUB_INTERVAL_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 1000,
    description: 'Scrubber tick (100 ms to 1 h)',
  }),
  STORE_INTEGRITY_SCRUB_OBJECTS_PER_TICK: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 100,
    description: 'Object versions the scrubber starts per tick (1 to 100,000)',
  }),
  STORE_INTEGRITY_SCRUB_BYTES_PER_TICK: Type.Integer({
    minimum: 65_536,
    maximum: 1_073_741_824,
    default: 8_388_608,
    description: 'Bytes the scrubber reads per tick (64 KiB to 1 GiB)',
  }),
  STORE_INTEGRITY_SCRUB_PASS_INTERVAL_HOURS: Type.Integer({
    minimum: 1,
    maximum: 8760,
    default: 168,
    description:
      'From the start of one scheduled pass to the next (1 to 8760 hours; a longer pass is followed at once)',
  }),
};

export const ANALYTICS_KEYS = {
  STORE_ANALYTICS_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 90,
    description: 'Usage samples and request counts older than this are pruned (1 to 3650 days)',
  }),
};
