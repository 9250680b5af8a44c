// Zero-config starts (`store serve --init`, the container image's command): credentials generated into
// DATA_DIR/secrets.env (mode 0600) and printed once, loaded on every later start. Generation happens only with --init,
// only for required values nobody gave, and only into an empty data directory or one --init set up before; a value
// that is given is validated exactly as without --init (docs/operations.md, "Zero-config start").

import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { ConfigError } from '../config/config.js';
import { formatDotenv, parseDotenv } from '../config/dotenv.js';
import { DataDirError } from '../storage/data-dir-error.js';
import { generate } from './init.js';

export const SECRETS_FILE = 'secrets.env';

/** The required values --init generates when missing. */
const REQUIRED = ['JWT_SECRET', 'ADMIN_PASSWORD_HASH', 'ROOT_ACCESS_KEY_ID', 'ROOT_SECRET_ACCESS_KEY'] as const;
/**
 * What the file may hold: the required values and KEY_ENCRYPTION_SECRET, generated with the file (unless given), so
 * that replacing the root secret later does not lock the scoped keys sealed under it.
 */
const FILE_KEYS: readonly string[] = [...REQUIRED, 'KEY_ENCRYPTION_SECRET'];

export interface StartPlan {
  /** The environment to validate: the caller's, over the file's values, over the generated ones. */
  env: NodeJS.ProcessEnv;
  /** Why --init generated nothing although a required value is missing (added to the refusal), if it did not. */
  hint: string | undefined;
  /**
   * Call once the configuration is accepted: saves what was generated (nothing if nothing was) and returns the text
   * to print this once (or ''). Throws DataDirError when the file cannot be written.
   */
  commit(adminUsername: string): string;
}

const isSet = (env: NodeJS.ProcessEnv, key: string): boolean => env[key] !== undefined && env[key] !== '';

/** Nothing in it, or nothing but the lost+found of a freshly made filesystem. */
function isEmptyDir(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).every((name) => name === 'lost+found');
}

function readSecretsFile(file: string): Record<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataDirError(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  return Object.fromEntries(Object.entries(parseDotenv(text)).filter(([key]) => FILE_KEYS.includes(key)));
}

/**
 * Writes the file durably: a temporary file (0600) fsynced, then linked into place when the file is new (so two
 * first starts racing cannot both win) or renamed over it, then the directory fsynced.
 */
function writeSecretsFile(file: string, text: string, opts: { isNew: boolean }): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (opts.isNew) linkSync(tmp, file);
    else renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/** The generated values, each by its key, and the admin password in clear (only to be printed). */
async function generateMissing(keys: string[]): Promise<{ values: Record<string, string>; adminPassword?: string }> {
  const values: Record<string, string> = {};
  let adminPassword: string | undefined;
  for (const key of keys) {
    if (key === 'JWT_SECRET') values[key] = generate.jwtSecret();
    if (key === 'KEY_ENCRYPTION_SECRET') values[key] = generate.keyEncryptionSecret();
    if (key === 'ROOT_ACCESS_KEY_ID') values[key] = generate.accessKeyId();
    if (key === 'ROOT_SECRET_ACCESS_KEY') values[key] = generate.secretAccessKey();
    if (key === 'ADMIN_PASSWORD_HASH') {
      adminPassword = generate.adminPassword();
      values[key] = await generate.passwordHash(adminPassword);
    }
  }
  return adminPassword === undefined ? { values } : { values, adminPassword };
}

function announcement(opts: {
  file: string;
  username: string;
  values: Record<string, string>;
  adminPassword: string | undefined;
}): string {
  const { values } = opts;
  const shown: string[] = [];
  if (opts.adminPassword !== undefined) shown.push(`  Admin console login:   ${opts.username} / ${opts.adminPassword}`);
  if (values['ROOT_ACCESS_KEY_ID'] !== undefined)
    shown.push(`  S3 access key id:      ${values['ROOT_ACCESS_KEY_ID']}`);
  if (values['ROOT_SECRET_ACCESS_KEY'] !== undefined)
    shown.push(`  S3 secret access key:  ${values['ROOT_SECRET_ACCESS_KEY']}`);
  const keys = Object.keys(values);
  const unshown = keys.filter(
    (k) => !['ADMIN_PASSWORD_HASH', 'ROOT_ACCESS_KEY_ID', 'ROOT_SECRET_ACCESS_KEY'].includes(k),
  );
  return [
    `Store generated ${keys.join(', ')} and saved ${keys.length === 1 ? 'it' : 'them'} in ${opts.file} (mode 0600).`,
    ...(shown.length > 0 ? ['Shown this once:', ...shown] : []),
    ...(unshown.length > 0 ? [`(${unshown.join(' and ')}: not shown, never needed by a client.)`] : []),
    'The S3 keys can be read again from that file; the password is kept only as a hash. Rotating or resetting any of',
    'them: delete its line from the file and restart with --init (docs/operations.md, "Zero-config start").',
    '',
  ].join('\n');
}

/**
 * Plans a start: reads DATA_DIR/secrets.env (always, when DATA_DIR is an absolute path) beneath the caller's
 * environment and, with `init`, generates the required values that are still missing. Nothing is written until
 * commit(). Throws ConfigError when only one of the root key pair is given with --init (a half pair is a mistake,
 * not a request for a generated other half); DataDirError when the file exists but cannot be read.
 */
export async function planStart(callerEnv: NodeJS.ProcessEnv, opts: { init: boolean }): Promise<StartPlan> {
  const nothing = (env: NodeJS.ProcessEnv, hint?: string): StartPlan => ({ env, hint, commit: () => '' });
  const dataDir = callerEnv['DATA_DIR'];
  if (dataDir === undefined || !isAbsolute(dataDir)) return nothing(callerEnv);
  const file = join(dataDir, SECRETS_FILE);
  const saved = readSecretsFile(file);
  const env: NodeJS.ProcessEnv = { ...saved, ...callerEnv };
  const missing = REQUIRED.filter((key) => !isSet(env, key));
  if (!opts.init || missing.length === 0) return nothing(env);
  if (saved === undefined && !isEmptyDir(dataDir)) {
    return nothing(
      env,
      '--init generates missing values only into an empty DATA_DIR, or one it set up before ' +
        `(holding ${SECRETS_FILE}); ${dataDir} holds other files`,
    );
  }
  const givenHalf = ['ROOT_ACCESS_KEY_ID', 'ROOT_SECRET_ACCESS_KEY'].filter((key) => isSet(callerEnv, key));
  if (givenHalf.length === 1) {
    throw new ConfigError([
      `${givenHalf[0]} is set but not its pair: give ROOT_ACCESS_KEY_ID and ROOT_SECRET_ACCESS_KEY ` +
        'together (or neither, for --init to generate both)',
    ]);
  }
  const toGenerate: string[] = [...missing];
  if (saved === undefined && !isSet(env, 'KEY_ENCRYPTION_SECRET')) toGenerate.push('KEY_ENCRYPTION_SECRET');
  const { values, adminPassword } = await generateMissing(toGenerate);
  return {
    env: { ...values, ...env },
    hint: undefined,
    commit(adminUsername) {
      const header =
        '# Store credentials generated by `store serve --init`. Keep this file private; it belongs to this data directory.\n' +
        '# The environment and a .env override these values. Delete a line and restart with --init to replace that value.';
      try {
        writeSecretsFile(file, formatDotenv({ ...saved, ...values }, header), { isNew: saved === undefined });
      } catch (err) {
        throw new DataDirError(`cannot save the generated credentials to ${file}: ${(err as Error).message}`, {
          cause: err,
        });
      }
      return announcement({ file, username: adminUsername, values, adminPassword });
    },
  };
}
