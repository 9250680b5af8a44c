// The running package's version (from package.json beside src/ and dist/), for User-Agent strings.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let cached: string | undefined;

/** The `version` field of the package's package.json, or "0.0.0" if it cannot be read. */
export function packageVersion(): string {
  if (cached === undefined) {
    try {
      // src/lib/ and dist/lib/ are both two levels below the package root.
      const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
        version?: unknown;
      };
      cached = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
    } catch {
      cached = '0.0.0';
    }
  }
  return cached;
}
