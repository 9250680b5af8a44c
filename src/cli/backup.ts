// `store backup` and `store restore`: the admin API's backup routes from the command line, against a running server.
// Archives are streamed both ways (never held in memory), saved 0600 (a backup holds decrypted data), and a
// progress bar is drawn on stderr when it is a terminal.

import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createInterface } from 'node:readline';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readPassword as readTerminalPassword } from './hash-password.js';
import { ProgressBar } from './progress.js';

export const BACKUP_USAGE = `usage:
  store backup  [--bucket NAME] [-o FILE|-]        download a snapshot of the instance (or one bucket)
  store restore FILE [--bucket NAME] [--bypass-governance]
                                                    reset the instance (or one bucket) to an archive
options (both):
  --url URL          the server (default $STORE_URL, else http://127.0.0.1:9000; include MOUNT_PATH)
  --username NAME    admin user (default $STORE_ADMIN_USERNAME, else admin)
  the password is read from $STORE_ADMIN_PASSWORD, else from the first line of stdin (prompted on a terminal)
`;

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

interface Options {
  url: string;
  username: string;
  bucket: string | undefined;
  output: string | undefined;
  bypassGovernance: boolean;
  file: string | undefined;
}

class UsageError extends Error {}

function parse(args: string[], env: NodeJS.ProcessEnv): Options {
  const opts: Options = {
    url: env['STORE_URL'] ?? 'http://127.0.0.1:9000',
    username: env['STORE_ADMIN_USERNAME'] ?? 'admin',
    bucket: undefined,
    output: undefined,
    bypassGovernance: false,
    file: undefined,
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === '--url') opts.url = value();
    else if (arg === '--username') opts.username = value();
    else if (arg === '--bucket') opts.bucket = value();
    else if (arg === '-o' || arg === '--output') opts.output = value();
    else if (arg === '--bypass-governance') opts.bypassGovernance = true;
    else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
    else if (opts.file === undefined) opts.file = arg;
    else throw new UsageError(`unexpected argument ${arg}`);
  }
  opts.url = opts.url.replace(/\/+$/, '');
  if (!/^https?:\/\//.test(opts.url)) throw new UsageError('--url must start with http:// or https://');
  return opts;
}

async function readPassword(opts: Options, io: CliIo): Promise<string> {
  const fromEnv = io.env['STORE_ADMIN_PASSWORD'];
  if (fromEnv) return fromEnv;
  // On a terminal: prompted, not echoed (the same reader as `store hash-password`).
  if (io.stdin.isTTY) return readTerminalPassword(`Password for ${opts.username}: `);
  const lines = createInterface({ input: io.stdin, terminal: false });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  throw new UsageError('no password: set STORE_ADMIN_PASSWORD or pass it on stdin');
}

/** One HTTP request with an optional streamed body; resolves with the response (not yet read). */
function send(
  url: string,
  opts: { method: string; headers: Record<string, string | number>; body?: NodeJS.ReadableStream },
): Promise<IncomingMessage> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(target, { method: opts.method, headers: opts.headers }, resolve);
    req.once('error', reject);
    if (opts.body) opts.body.pipe(req);
    else req.end();
  });
}

async function readJson(res: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { message: text.slice(0, 200) };
  }
}

async function failure(res: IncomingMessage): Promise<Error> {
  const body = await readJson(res);
  return new Error(`${res.statusCode ?? '?'} ${String(body['error'] ?? '')}: ${String(body['message'] ?? '')}`.trim());
}

async function login(opts: Options, io: CliIo): Promise<string> {
  const password = await readPassword(opts, io);
  const payload = JSON.stringify({ username: opts.username, password });
  const res = await send(`${opts.url}/api/admin/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    body: Readable.from([payload]),
  });
  if (res.statusCode !== 200) throw await failure(res);
  const token = (await readJson(res))['accessToken'];
  if (typeof token !== 'string') throw new Error('the server answered the sign-in without an access token');
  return token;
}

function counting(bar: ProgressBar): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bar.add(chunk.length);
      callback(null, chunk);
    },
  });
}

async function backup(opts: Options, io: CliIo): Promise<number> {
  if (opts.file !== undefined) throw new UsageError(`unexpected argument ${opts.file}`);
  if (opts.output === '-' && io.stdout.isTTY)
    throw new UsageError('refusing to write a zip archive to a terminal; use -o FILE');
  const token = await login(opts, io);
  const path = opts.bucket === undefined ? '/backup' : `/buckets/${encodeURIComponent(opts.bucket)}/backup`;
  const res = await send(`${opts.url}/api/admin${path}`, {
    method: 'GET',
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.statusCode !== 200) throw await failure(res);
  const suggested =
    /filename="([^"/\\]+)"/.exec(String(res.headers['content-disposition'] ?? ''))?.[1] ?? 'store-backup.zip';
  const bar = new ProgressBar(io.stderr, 'backup', undefined);
  if (opts.output === '-') {
    await pipeline(res, counting(bar), io.stdout);
    bar.finish();
    return 0;
  }
  const file = opts.output ?? suggested;
  const partial = `${file}.part`;
  try {
    await pipeline(res, counting(bar), createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw new Error(`the download did not complete (${(err as Error).message}); nothing was saved`);
  }
  bar.finish();
  io.stderr.write(`saved ${file} (${(await stat(file)).size} bytes)\n`);
  return 0;
}

async function restore(opts: Options, io: CliIo): Promise<number> {
  if (opts.file === undefined) throw new UsageError('store restore needs the archive FILE');
  if (opts.output !== undefined) throw new UsageError('-o is for store backup');
  const { size } = await stat(opts.file);
  const token = await login(opts, io);
  const base = opts.bucket === undefined ? '/restore' : `/buckets/${encodeURIComponent(opts.bucket)}/restore`;
  const query = opts.bypassGovernance ? '?bypassGovernance=true' : '';
  const bar = new ProgressBar(io.stderr, 'upload', size);
  const body = createReadStream(opts.file).pipe(counting(bar));
  body.once('end', () => bar.finish('uploaded; the server is validating and applying the archive...'));
  const res = await send(`${opts.url}/api/admin${base}${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/zip', 'content-length': size },
    body,
  });
  if (res.statusCode !== 200) throw await failure(res);
  const result = await readJson(res);
  io.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}

/** Runs `store backup ARGS` or `store restore ARGS`. Returns the exit code (64 for a usage error). */
export async function backupCommand(command: 'backup' | 'restore', args: string[], io: CliIo): Promise<number> {
  try {
    const opts = parse(args, io.env);
    return await (command === 'backup' ? backup(opts, io) : restore(opts, io));
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`store ${command}: ${err.message}\n${BACKUP_USAGE}`);
      return 64;
    }
    io.stderr.write(`store ${command}: ${(err as Error).message}\n`);
    return 1;
  }
}
