// The podman command line for the container suite (test/container/): run it, wait for a published port's readiness.

import { execFile } from 'node:child_process';
import { createServer } from 'node:net';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman ARGS` to completion; throws on a non-zero exit unless `allowFail`. */
export function podman(args: string[], opts: { allowFail?: boolean; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(
      'podman',
      args,
      { timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : -1
          : 0;
        if (code !== 0 && !opts.allowFail)
          reject(new Error(`podman ${args.join(' ')} exited ${code}:\n${stderr}${stdout}`));
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A loopback port that was free a moment ago (for -p 127.0.0.1:PORT:9000). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Polls GET url until it answers `status`; resolves with the milliseconds it took. Throws after `timeoutMs`. */
export async function waitForStatus(url: string, status: number, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  let last = 'no answer';
  while (Date.now() - started < timeoutMs) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === status) return Date.now() - started;
      last = String(res.status);
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms (last: ${last})`);
}

/** VmRSS of the container's process 1, in MiB. */
export async function containerRssMiB(container: string): Promise<number> {
  const { stdout } = await podman(['exec', container, 'cat', '/proc/1/status']);
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(stdout)?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}
