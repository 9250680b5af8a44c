// Shared plumbing for the end-to-end suite: running real CLI clients in an isolated environment, making test
// files and trees, and comparing them by SHA-256. No client-specific knowledge lives here.

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { delimiter, join, relative } from 'node:path';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * Runs a program and resolves with its exit code and output; never rejects on a non-zero exit (tests assert
 * on `code`). Rejects only if the program cannot be started or exceeds `timeoutMs` (default 180 s).
 */
export function run(file: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      {
        env: opts.env,
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 180_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') {
          reject(
            new Error(`${file} ${args.join(' ')} failed to run (${err.code ?? err.signal ?? err.message})\n${stderr}`),
          );
          return;
        }
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Like `run`, but rejects with the full command line and output when the exit code is not 0. */
export async function runOk(file: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  const res = await run(file, args, opts);
  if (res.code !== 0) {
    throw new Error(
      `exit ${res.code}: ${file} ${args.join(' ')}\n--- stdout\n${res.stdout}\n--- stderr\n${res.stderr}`,
    );
  }
  return res;
}

/**
 * A minimal environment for a client process: PATH, a private HOME and a UTF-8 locale, plus `extra`.
 * Nothing else from the parent leaks in (AWS_CA_BUNDLE, proxies and profiles break or skew clients).
 */
export function isolatedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TMPDIR: home,
    ...extra,
  };
}

/**
 * isolatedEnv for the AWS CLI: these credentials, us-east-1, JSON output, no pager, no instance metadata, and its
 * config file at `home`/config (the caller writes it) and credentials file at `home`/credentials; plus `extra`.
 */
export function awsCliEnv(
  home: string,
  opts: { credentials: { accessKeyId: string; secretAccessKey: string }; extra?: Record<string, string> },
): Record<string, string> {
  return isolatedEnv(home, {
    AWS_ACCESS_KEY_ID: opts.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: opts.credentials.secretAccessKey,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_CONFIG_FILE: join(home, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials'),
    AWS_DEFAULT_OUTPUT: 'json',
    AWS_PAGER: '',
    AWS_EC2_METADATA_DISABLED: 'true',
    ...opts.extra,
  });
}

/** Finds every file called `name` on PATH, in PATH order, one per real path (/bin is often /usr/bin). */
export function whichAll(name: string): string[] {
  const found = new Map<string, string>();
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate) && !found.has(realpathSync(candidate)))
      found.set(realpathSync(candidate), candidate);
  }
  return [...found.values()];
}

/** Writes `bytes` random bytes to `path` in 1 MiB chunks (incompressible, so no layer can cheat). */
export async function writeRandomFile(path: string, bytes: number): Promise<void> {
  const fh = await open(path, 'w');
  try {
    for (let left = bytes; left > 0; left -= 1 << 20) await fh.write(randomBytes(Math.min(left, 1 << 20)));
  } finally {
    await fh.close();
  }
}

export function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('error', reject)
      .on('data', (d) => hash.update(d))
      .on('end', () => resolve(hash.digest('hex')));
  });
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Relative paths of a tree whose names trip up key encoding: spaces, non-ASCII, `+`, `%`, `=`, `&`, quotes,
 * brackets, `~`, and nesting three levels deep.
 */
export const ODD_FILES: readonly string[] = [
  'top level.txt',
  'dir one/sub ü/fïlé ✓.txt',
  'dir one/sub ü/deeper/日本語 ファイル.md',
  'plus+dir/a+b=c.txt',
  'pct%20dir/100%.txt',
  'pct%20dir/%2F not a slash.txt',
  "weird &'()[]{}~!@#$^,;.txt",
  'empty.txt',
];

/**
 * Creates ODD_FILES under `dir` with distinct small contents (`empty.txt` is empty), dated a minute back so a
 * file rewritten later is unambiguously newer than both its old copy and the uploaded object (mtime-based sync).
 */
export function makeOddTree(dir: string): void {
  const past = new Date(Date.now() - 60_000);
  for (const rel of ODD_FILES) {
    const path = join(dir, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, rel === 'empty.txt' ? '' : `${rel}\n${randomBytes(16).toString('hex')}\n`);
    utimesSync(path, past, past);
  }
}

/** Map of relative path (with `/`) to SHA-256 for every file under `dir`, sorted by path. */
export async function treeDigest(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string): Promise<void> => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) await walk(path);
      else out[relative(dir, path).split('\\').join('/')] = await sha256File(path);
    }
  };
  await walk(dir);
  return out;
}

/** Extracts the S3 error `<Code>` from an XML error body, or undefined. */
export function xmlErrorCode(body: string): string | undefined {
  return /<Code>([^<]+)<\/Code>/.exec(body)?.[1];
}

/** The isolated environment for an AWS-SDK-based client (boto3, the AWS CLI) with the server's root key. */
export function awsClientEnv(
  home: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Record<string, string> {
  return isolatedEnv(home, {
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_CONFIG_FILE: join(home, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  });
}
