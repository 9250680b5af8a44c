// The AWS CLI binaries the e2e suite runs: v2 (Debian's /usr/bin/aws, required) and v1 (any other `aws` on PATH,
// e.g. pyenv's; an empty `bin` when absent, so its tests show up as skipped).

import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { whichAll } from './support.js';

export interface AwsCli {
  label: 'v1' | 'v2';
  bin: string;
}

/** Major version of an `aws` binary, or undefined if it does not run. */
function majorVersion(bin: string): number | undefined {
  try {
    const out = execFileSync(bin, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    const m = /aws-cli\/(\d+)\./.exec(out);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** A pyenv shim costs ~0.7 s per call; resolve it to the real script once. */
function unshim(bin: string): string {
  const m = /^(.*)\/shims\/aws$/.exec(bin);
  if (!m) return bin;
  try {
    return (
      execFileSync(join(m[1] as string, 'libexec/pyenv'), ['which', 'aws'], {
        encoding: 'utf8',
        env: { ...process.env, PYENV_ROOT: m[1] },
      }).trim() || bin
    );
  } catch {
    return bin;
  }
}

/** Both CLIs, v2 first. v1 is not packaged by Debian; when no `aws` v1 is on PATH its `bin` is ''. */
export function awsClis(): AwsCli[] {
  const v1Bin = whichAll('aws')
    .filter((bin) => !existsSync('/usr/bin/aws') || realpathSync(bin) !== realpathSync('/usr/bin/aws'))
    .find((bin) => majorVersion(bin) === 1);
  return [
    { label: 'v2', bin: '/usr/bin/aws' },
    { label: 'v1', bin: v1Bin ? unshim(v1Bin) : '' },
  ];
}
