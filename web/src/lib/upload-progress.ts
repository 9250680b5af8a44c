// The uploads' overall progress as the always-visible bar shows it: bytes and files done, the speed over the last
// few seconds and the time left at that speed. Pure (unit-tested in Node); times are passed in, in milliseconds.

export interface TaskProgress {
  size: number;
  loaded: number;
  state: 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled';
}

export interface Overall {
  /** Files that are or will be sent (cancelled ones left out). */
  files: number;
  doneFiles: number;
  failedFiles: number;
  activeFiles: number;
  bytes: number;
  loaded: number;
}

export function overall(tasks: readonly TaskProgress[]): Overall {
  const counted = tasks.filter((t) => t.state !== 'cancelled');
  return {
    files: counted.length,
    doneFiles: counted.filter((t) => t.state === 'done').length,
    failedFiles: counted.filter((t) => t.state === 'failed').length,
    activeFiles: counted.filter((t) => t.state === 'queued' || t.state === 'uploading').length,
    bytes: counted.reduce((n, t) => n + t.size, 0),
    loaded: counted.reduce((n, t) => n + (t.state === 'done' ? t.size : t.loaded), 0),
  };
}

/** Bytes per second over a sliding window of samples of the total sent. */
export class RateMeter {
  private samples: Array<{ at: number; loaded: number }> = [];

  constructor(private readonly windowMs = 5000) {}

  /** Records the total sent at `at`; a total that went down (a retry, a cancel) restarts the window. */
  add(at: number, loaded: number): void {
    const last = this.samples[this.samples.length - 1];
    if (last && loaded < last.loaded) this.samples = [];
    this.samples.push({ at, loaded });
    while (this.samples.length > 2 && (this.samples[0]?.at ?? at) < at - this.windowMs) this.samples.shift();
  }

  /** Bytes per second, or undefined until two samples at least 250 ms apart exist. */
  rate(): number | undefined {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at - first.at < 250) return undefined;
    return ((last.loaded - first.loaded) * 1000) / (last.at - first.at);
  }
}

/** Seconds left at `rate`, or undefined when the rate is unknown or zero. */
export function secondsLeft(remaining: number, rate: number | undefined): number | undefined {
  if (rate === undefined || rate <= 0) return undefined;
  return Math.ceil(remaining / rate);
}
