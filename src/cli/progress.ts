// A one-line progress bar for the CLI's transfers, drawn on a terminal only (redrawn in place at most 10 times a
// second); silent when the stream is not a TTY, so scripts and logs get no control characters.

const MiB = 1024 * 1024;

function size(bytes: number): string {
  return bytes >= 1024 * MiB ? `${(bytes / (1024 * MiB)).toFixed(2)} GiB` : `${(bytes / MiB).toFixed(1)} MiB`;
}

/** The bar's text: with a known total, `[#####-----]  50%  1.0/2.0 MiB  3.0 MiB/s`; without one, the bytes and rate. */
export function formatProgress(
  label: string,
  progress: { done: number; total: number | undefined; elapsedMs: number },
  width = 24,
): string {
  const { done, total, elapsedMs } = progress;
  const rate = elapsedMs > 0 ? `${size((done * 1000) / elapsedMs)}/s` : '';
  if (total === undefined || total <= 0) return `${label}  ${size(done)}  ${rate}`.trimEnd();
  const fraction = Math.min(1, done / total);
  const filled = Math.round(fraction * width);
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  return `${label}  [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}  ${size(done)} of ${size(total)}  ${rate}`.trimEnd();
}

export class ProgressBar {
  private done = 0;
  private lastDraw = 0;
  private readonly started = Date.now();

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly label: string,
    private readonly total: number | undefined,
  ) {}

  private get enabled(): boolean {
    return this.out.isTTY === true;
  }

  add(bytes: number): void {
    this.done += bytes;
    const now = Date.now();
    if (this.enabled && now - this.lastDraw >= 100) {
      this.lastDraw = now;
      this.draw();
    }
  }

  private draw(): void {
    this.out.write(
      `\r${formatProgress(this.label, { done: this.done, total: this.total, elapsedMs: Date.now() - this.started })}\u001b[K`,
    );
  }

  /** Draws the final state and ends the line (or a status message in its place). */
  finish(message?: string): void {
    if (!this.enabled) return;
    if (message === undefined) this.draw();
    else this.out.write(`\r${message}\u001b[K`);
    this.out.write('\n');
  }
}
