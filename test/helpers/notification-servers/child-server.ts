// Starting a real message server (redis-server, nats-server, rabbitmq-server, mosquitto, postgres) as a child
// process for notification-transport tests: a free loopback port, a temp directory, readiness by probing with a
// real client, and a stop that kills the process group member it started and removes the directory.

import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * The absolute path of an installed command: Debian puts nats-server and mosquitto in /usr/sbin, which is not on a
 * non-root user's PATH.
 */
export function findCommand(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean);
  for (const dir of dirs) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this directory
    }
  }
  throw new Error(`${name} is not installed (see system_packages in .ci/run)`);
}

/** A fresh temp directory, owned by `owner` when given (servers that refuse to run as root). */
export function tempDir(prefix: string, owner?: { uid: number; gid: number }): string {
  const dir = mkdtempSync(join(tmpdir(), `store-${prefix}-`));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
}

/** A running child with the tail of its output kept for failure messages. */
export class ChildServer {
  private output = '';
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  readonly child: ChildProcess;

  constructor(readonly opts: SpawnOptions) {
    this.child = spawn(opts.command, opts.args, {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      uid: opts.uid,
      gid: opts.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString('utf8')).slice(-8000);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        keep(Buffer.from(`spawn error: ${err.message}\n`));
        this.exit ??= { code: null, signal: null };
        resolve();
      });
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      });
    });
  }

  /** The last few KB the server printed. */
  get log(): string {
    return this.output;
  }

  /**
   * Calls `probe` until it resolves true; throws (with the server's output) when the child exits first or after
   * `timeoutMs`. Probes are real client connections, paced 100 ms apart.
   */
  async waitReady(probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
    const started = Date.now();
    let last = 'not probed';
    while (Date.now() - started < timeoutMs) {
      if (this.exit) throw new Error(`${this.opts.name} exited (${JSON.stringify(this.exit)}):\n${this.output}`);
      try {
        if (await probe()) return Date.now() - started;
        last = 'probe said not ready';
      } catch (err) {
        last = err instanceof Error ? err.message : String(err);
      }
      await delay(100);
    }
    await this.stop();
    throw new Error(`${this.opts.name} not ready after ${timeoutMs} ms (${last}):\n${this.output}`);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.exit) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Removes a temp directory made by tempDir. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Counts of the process's live sockets and timers, to show a closed transport left nothing behind. */
export function liveHandles(): { sockets: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return {
    sockets: info.filter((r) => r === 'TCPSocketWrap' || r === 'PipeWrap' || r === 'TLSWrap').length,
    timers: info.filter((r) => r === 'Timeout').length,
  };
}
