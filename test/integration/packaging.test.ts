// The Dockerfile, .dockerignore and systemd unit, linted against the code they package (the image itself is built and
// run by the container stage of .ci/run, test/container/; systemd cannot run here, no systemd as PID 1): the image's
// HEALTHCHECK command, run as written against a real server,
// passes on the readiness probe (under MOUNT_PATH too) and fails without one; the image's port, volume, user and
// command match Store's defaults and files; the unit starts an existing entry point, carries the hardening an
// operator expects (and not MemoryDenyWriteExecute, which V8's JIT cannot run under), waits longer than the drain;
// and `systemd-analyze verify` accepts it where that tool exists.

import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { configEnv } from '../helpers/config-env.js';
import { REPO_ROOT, tempDir } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

const DEFAULTS = loadConfig(configEnv());

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Dockerfile instructions by stage, with line continuations joined and comments dropped. */
function dockerStages(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', args = ''] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({ from: m?.[1] ?? args, name: m?.[2], instructions: [] });
    } else {
      stages[stages.length - 1]?.instructions.push({ op: op.toUpperCase(), args });
    }
  }
  return stages;
}

const argsOf = (stage: Stage, op: string): string[] => stage.instructions.filter((i) => i.op === op).map((i) => i.args);

/** ENV instructions of a stage as a map (the `ENV A=1 B=2` form). */
function envOf(stage: Stage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const args of argsOf(stage, 'ENV'))
    for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) out[k as string] = v as string;
  return out;
}

/** A systemd unit as section -> key -> values (a key may repeat). */
function unitFile(text: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1] as string;
      out[section] = {};
      continue;
    }
    const [, key = '', value = ''] = /^([^=]+)=(.*)$/.exec(line) ?? [];
    ((out[section] as Record<string, string[]>)[key.trim()] ??= []).push(value.trim());
  }
  return out;
}

describe('Dockerfile', () => {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerStages(text);
  const runtime = stages[stages.length - 1] as Stage;
  const build = stages[0] as Stage;
  const store = useStore({ env: { MOUNT_PATH: '/storage' } });

  /** The HEALTHCHECK's command, run as Docker would (exec form), with this environment. */
  const healthcheck = (env: Record<string, string>): Promise<number> => {
    const cmd = /CMD\s+(\[.*\])\s*$/.exec(argsOf(runtime, 'HEALTHCHECK')[0] ?? '')?.[1];
    const argv = JSON.parse(cmd ?? '[]') as string[];
    expect(argv[0]).toBe('node');
    return promisify(execFile)(process.execPath, argv.slice(1), {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      timeout: 10_000,
    }).then(
      () => 0,
      (err: { code?: number }) => err.code ?? -1,
    );
  };

  it('builds in one stage and runs from another with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(new Set(stages.map((s) => s.from.split(':')[0])).size).toBe(1); // same base: native modules built in one load in the other
    const buildRuns = argsOf(build, 'RUN').join('\n');
    expect(buildRuns).toMatch(/npm ci\b/);
    expect(buildRuns).toMatch(/npm run build\b/);
    expect(buildRuns).toMatch(/npm prune --omit=dev\b/);
    expect(argsOf(runtime, 'RUN').join('\n')).not.toMatch(/npm (ci|install)\b/);
    expect(argsOf(runtime, 'COPY').every((a) => a.startsWith(`--from=${build.name}`))).toBe(true);
  });

  it('runs as an unprivileged user, with DATA_DIR as a volume and the default port exposed', () => {
    const user = argsOf(runtime, 'USER').pop();
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user?.split(':')[0]);
    const env = envOf(runtime);
    expect(JSON.parse(argsOf(runtime, 'VOLUME')[0] ?? '[]')).toEqual([env['DATA_DIR']]);
    expect(env['PORT']).toBe(String(DEFAULTS.PORT));
    expect(argsOf(runtime, 'EXPOSE')).toEqual([String(DEFAULTS.PORT)]);
    expect(env['HOST']).toBe('0.0.0.0'); // reachable through the published port
  });

  it('builds on the official Node 20 image unless NODE_IMAGE names another base for both stages', () => {
    expect(text).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    expect(stages.map((s) => s.from)).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}']);
  });

  it('starts `store serve --init` (a zero-config first start) from a file that exists', () => {
    expect(JSON.parse(argsOf(runtime, 'CMD')[0] ?? '[]')).toEqual(['node', 'bin/store.js', 'serve', '--init']);
    expect(existsSync(join(REPO_ROOT, 'bin/store.js'))).toBe(true);
  });

  it('copies only files that exist and that .dockerignore lets into the build context', () => {
    const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const secret of ['.env', 'node_modules', 'dist', 'data', '.git']) expect(ignored, secret).toContain(secret);
    const sources = argsOf(build, 'COPY').flatMap((a) => a.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(3);
    for (const src of sources) {
      expect(existsSync(join(REPO_ROOT, src)), src).toBe(true);
      expect(
        ignored.some((pattern) => src === pattern || src.startsWith(`${pattern}/`)),
        `${src} is ignored`,
      ).toBe(false);
    }
  });

  it('HEALTHCHECK passes on the readiness probe, under MOUNT_PATH, and fails when it cannot reach it', async () => {
    expect(argsOf(runtime, 'HEALTHCHECK')[0]).toContain('/api/admin/ready');
    expect(await healthcheck({ PORT: String(store.server.port), MOUNT_PATH: '/storage' })).toBe(0);
    expect(await healthcheck({ PORT: String(store.server.port) })).toBe(1); // 404 outside the mount
    const closed = await new Promise<number>((res) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => res(port));
      });
    });
    expect(await healthcheck({ PORT: String(closed) })).toBe(1);
  });
});

describe('systemd unit', () => {
  const path = join(REPO_ROOT, 'packaging/systemd/store.service');
  const unit = unitFile(readFileSync(path, 'utf8'));
  const service = unit['Service'] ?? {};
  const one = (key: string): string | undefined => service[key]?.[service[key].length - 1];

  it('starts an existing entry point from its working directory, with the .env as an EnvironmentFile', () => {
    const [node, script, command] = (one('ExecStart') ?? '').split(/\s+/);
    expect(node).toMatch(/^\/.*\/node$/);
    const workdir = one('WorkingDirectory') as string;
    expect(script?.startsWith(`${workdir}/`)).toBe(true);
    expect(existsSync(join(REPO_ROOT, (script as string).slice(workdir.length + 1)))).toBe(true);
    expect(command).toBe('serve');
    expect(one('EnvironmentFile')).toMatch(/^\/etc\//);
    expect(one('Restart')).toBe('on-failure');
    expect(unit['Install']?.['WantedBy']).toEqual(['multi-user.target']);
  });

  it('waits for the drain before killing, and allows enough file descriptors', () => {
    const stop = /^(\d+)s$/.exec(one('TimeoutStopSec') ?? '')?.[1];
    expect(Number(stop) * 1000).toBeGreaterThan(DEFAULTS.SHUTDOWN_DRAIN_MS);
    expect(one('KillSignal') ?? 'SIGTERM').toBe('SIGTERM');
    expect(Number(one('LimitNOFILE'))).toBeGreaterThanOrEqual(65536);
  });

  it('is hardened: unprivileged, read-only system but for the data directory, no capabilities, a syscall filter', () => {
    expect(one('User') ?? (one('DynamicUser') === 'yes' ? 'dynamic' : undefined)).toBeDefined();
    expect(one('User')).not.toBe('root');
    expect({
      NoNewPrivileges: one('NoNewPrivileges'),
      ProtectSystem: one('ProtectSystem'),
      ProtectHome: one('ProtectHome'),
      PrivateTmp: one('PrivateTmp'),
      CapabilityBoundingSet: one('CapabilityBoundingSet'),
      SystemCallFilter: one('SystemCallFilter'),
    }).toEqual({
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      CapabilityBoundingSet: '',
      SystemCallFilter: '@system-service',
    });
    expect(one('RestrictAddressFamilies')?.split(/\s+/).sort()).toEqual(['AF_INET', 'AF_INET6', 'AF_UNIX']);
    expect(one('ReadWritePaths')).toBe(`/var/lib/${one('StateDirectory')}`);
    // V8 compiles JavaScript into memory it then executes: W^X enforcement kills node at startup.
    expect(service['MemoryDenyWriteExecute']).toBeUndefined();
  });

  it.skipIf(spawnSync('systemd-analyze', ['--version']).status !== 0)('passes systemd-analyze verify', () => {
    // The unit names /usr/bin/node; point it at this machine's node so verify checks everything else.
    const dir = tempDir('store-unit-');
    const copy = join(dir, 'store.service');
    writeFileSync(copy, readFileSync(path, 'utf8').replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`));
    const res = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8', timeout: 30_000 });
    rmSync(dir, { recursive: true, force: true });
    expect({
      status: res.status,
      findings: `${res.stdout}${res.stderr}`.split('\n').filter((l) => l.includes('store.service')),
    }).toEqual({ status: 0, findings: [] });
  });
});
