// Types for soak.mjs (a plain script of the benchmark, run without a build), for test/fault/soak.test.ts.
export type Signer = (method: string, url: URL, headers: Record<string, string>) => Record<string, string>;

export interface SoakSample {
  /** Seconds since the load started. */
  t: number;
  rssMiB: number;
  fds: number;
  /** Operations done so far. */
  ops: number;
  /** Operations per second since the previous sample. */
  opsPerSecond: number;
}

export interface Level {
  rssMiB: number;
  fds: number;
}

/** An idle snapshot: the level, and the fds requests could leak (see requestFds). */
export interface IdleLevel extends Level {
  sockets: number;
  files: number;
}

export interface SoakResult {
  ops: number;
  opsPerSecond: number;
  samples: SoakSample[];
  /** Before the load, and once the client's connections are closed and the settle time has passed. */
  idleBefore: IdleLevel;
  idleAfter: IdleLevel;
  /** Means over the first third after warm-up and over the last third. */
  early: Level;
  late: Level;
  growthMiB: number;
  fdGrowth: number;
  peakMiB: number;
  peakFds: number;
}

export declare function rssKiB(pid: number): number;
export declare function fdCount(pid: number): number;
export declare function requestFds(pid: number): { sockets: number; files: number };
export declare function runSoak(o: {
  baseUrl: string;
  sign: Signer;
  pid: number;
  bucket: string;
  seconds: number;
  log: (m: string) => void;
  sampleMs?: number;
  settleMs?: number;
  /** Default a fifth of the run. */
  warmUpSeconds?: number;
}): Promise<SoakResult>;
export declare function byMinute(
  samples: SoakSample[],
): { minute: number; rssMiB: number; fds: number; peakFds: number; opsPerSecond: number }[];
export declare function samplesCsv(samples: SoakSample[]): string;
