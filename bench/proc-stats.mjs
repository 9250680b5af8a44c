// @ts-check
// What a server process costs, read from /proc (Linux only; NaN or empty elsewhere): CPU seconds of the process and
// of each thread, peak RSS, and the helpers the cost modes measure with.

import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds (user + system) from a /proc stat file; NaN where it cannot be read. @param {string} file */
function statCpuSeconds(file) {
  try {
    const stat = readFileSync(file, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15, in clock ticks (100/s on
    // Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Server CPU seconds so far (user + system) from /proc/<pid>/stat; NaN where /proc is missing. @param {number} pid */
export function cpuSeconds(pid) {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/**
 * CPU seconds so far of each thread of a process, by `<name>#<tid>` (`main` for the event loop); empty without /proc.
 * @param {number} pid @returns {Map<string, number>}
 */
function threadCpuSeconds(pid) {
  const threads = new Map();
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    let name = 'main';
    if (tid !== String(pid)) {
      try {
        name = `${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()}#${tid}`;
      } catch {
        continue;
      }
    }
    const seconds = statCpuSeconds(`/proc/${pid}/task/${tid}/stat`);
    if (!Number.isNaN(seconds)) threads.set(name, seconds);
  }
  return threads;
}

/**
 * Runs `op` `n` times over `concurrency` workers, each starting the next op (numbered from 0) when its last one ends.
 * @param {number} concurrency @param {number} n @param {(i: number) => Promise<unknown>} op
 */
export async function runOps(concurrency, n, op) {
  let started = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < n) await op(started++);
    }),
  );
}

/**
 * Runs `work` and measures it: wall seconds, the CPU seconds each thread of `pid` spent meanwhile (busiest first,
 * idle threads left out) and their total, and this process's CPU seconds (the client). Linux only (/proc).
 * @param {number} pid @param {() => Promise<unknown>} work
 */
export async function threadCpuDuring(pid, work) {
  const before = threadCpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const startedAt = Date.now();
  await work();
  const seconds = (Date.now() - startedAt) / 1000;
  const client = process.cpuUsage(clientBefore);
  const threads = [...threadCpuSeconds(pid)]
    .map(([name, cpu]) => /** @type {[string, number]} */ ([name, cpu - (before.get(name) ?? 0)]))
    .filter(([, cpu]) => cpu > 0)
    .sort((a, b) => b[1] - a[1]);
  return {
    seconds,
    threads,
    total: threads.reduce((sum, [, cpu]) => sum + cpu, 0),
    clientSeconds: (client.user + client.system) / 1e6,
  };
}

/** Peak resident set size in KiB (VmHWM). @param {number} pid */
export function peakRssKiB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/**
 * One line of a large-transfer cost run: MB/s, the ms of CPU per MB of Store (in all and by thread) and of this
 * client, and Store's peak RSS.
 * @param {string} label
 * @param {{ bytes: number, cost: Awaited<ReturnType<typeof threadCpuDuring>>, pid: number }} measured the bytes moved
 *   while `cost` was measured, and Store's pid
 */
export function costPerMb(label, { bytes, cost, pid }) {
  const mb = bytes / 1e6;
  const perMb = (/** @type {number} */ cpu) => ((cpu * 1000) / mb).toFixed(2);
  return (
    `${label}: ${(mb / cost.seconds).toFixed(1)} MB/s; ms of CPU per MB: Store ${perMb(cost.total)} ` +
    `(${cost.threads.map(([name, cpu]) => `${name} ${perMb(cpu)}`).join(', ')}); client ${perMb(cost.clientSeconds)}; ` +
    `peak RSS ${(peakRssKiB(pid) / 1024).toFixed(0)} MiB`
  );
}

/**
 * CPU seconds so far of a process and every live descendant (a message server's workers: PostgreSQL's backends,
 * RabbitMQ's helpers); NaN without /proc. @param {number} pid
 */
export function treeCpuSeconds(pid) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return NaN;
  }
  for (const d of entries) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone meanwhile */
    }
  }
  let total = 0;
  for (const todo = [pid]; todo.length > 0;) {
    const p = /** @type {number} */ (todo.pop());
    const cpu = cpuSeconds(p);
    if (!Number.isNaN(cpu)) total += cpu;
    todo.push(...(children.get(p) ?? []));
  }
  return total;
}
