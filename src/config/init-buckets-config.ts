// STORE_INIT_BUCKETS, buckets created at start when they do not exist yet (for dev and CI): `name`, `name:versioned`
// or `name:locked` (object lock, which implies versioning), comma-separated. This file checks the list's form; the
// names get S3's full naming rules from core/names.ts at boot (src/app/init-buckets.ts), before anything is written.

import { Type } from '@sinclair/typebox';

export const INIT_BUCKETS_KEYS = {
  STORE_INIT_BUCKETS: Type.String({
    default: '',
    description: 'Comma-separated buckets created at start if missing: name, name:versioned or name:locked',
  }),
};

export interface InitBucket {
  name: string;
  versioned: boolean;
  locked: boolean;
}

const FLAGS = ['versioned', 'locked'] as const;

/** Each entry of the list with its flags, or the problem with it (bucket names are not secrets: they are named). */
function parseEntry(entry: string): InitBucket | string {
  const [name = '', ...flags] = entry.split(':').map((part) => part.trim());
  if (name === '') return `STORE_INIT_BUCKETS has an entry without a bucket name: '${entry}'`;
  const unknown = flags.filter((flag) => !(FLAGS as readonly string[]).includes(flag));
  if (unknown.length > 0) {
    return `STORE_INIT_BUCKETS: '${entry}' has an unknown option ${unknown.map((f) => `'${f}'`).join(', ')} (only :versioned and :locked)`;
  }
  if (new Set(flags).size !== flags.length) return `STORE_INIT_BUCKETS: '${entry}' repeats an option`;
  return { name, versioned: flags.includes('versioned') || flags.includes('locked'), locked: flags.includes('locked') };
}

function entries(list: string): string[] {
  return list
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

/** The refusals: an entry without a name, an unknown or repeated option, a bucket listed twice. */
export function initBucketsProblems(cfg: { STORE_INIT_BUCKETS: string }): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const entry of entries(cfg.STORE_INIT_BUCKETS)) {
    const parsed = parseEntry(entry);
    if (typeof parsed === 'string') {
      problems.push(parsed);
    } else if (seen.has(parsed.name)) {
      problems.push(`STORE_INIT_BUCKETS lists the bucket '${parsed.name}' twice`);
    } else {
      seen.add(parsed.name);
    }
  }
  return problems;
}

/** The buckets to create, in the order listed. Call after validation. */
export function initBuckets(cfg: { STORE_INIT_BUCKETS: string }): InitBucket[] {
  return entries(cfg.STORE_INIT_BUCKETS)
    .map(parseEntry)
    .filter((e): e is InitBucket => typeof e !== 'string');
}
