// Writes dist/build-info.json, the commit this build was made from, for copies of Store that have no git history
// (the npm package, the container image); src/lib/build-info.ts reads it there. Run by `npm run build` after tsc.
// The commit is STORE_COMMIT when set (the image's build argument: .git is not in its build context), else the
// checkout's HEAD, else 'unknown'.

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gitCommit } from '../dist/lib/build-info.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const given = process.env.STORE_COMMIT ?? '';
if (given !== '' && given !== 'unknown' && !/^[0-9a-f]{7,40}$/.test(given)) {
  console.error(`write-build-info: STORE_COMMIT is not a commit hash (7 to 40 lowercase hex digits): ${given}`);
  process.exit(1);
}
const commit = given !== '' ? given : (gitCommit(root) ?? 'unknown');
writeFileSync(new URL('../dist/build-info.json', import.meta.url), `${JSON.stringify({ commit })}\n`);
