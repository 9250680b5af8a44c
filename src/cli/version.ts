// `store --version`: the version and commit, from the same place GET /api/admin/version answers from
// (lib/build-info.ts), so the two always agree.

import { fileURLToPath } from 'node:url';
import { readBuildInfo } from '../lib/build-info.js';

/** `store <version> (commit <commit>)`, found from this file's place in the package (src/ or dist/). */
export function versionLine(): string {
  const { version, build } = readBuildInfo(fileURLToPath(new URL('.', import.meta.url)));
  return `store ${version} (commit ${build})`;
}
