// Scraping a test server's /metrics and reading the text exposition (format 0.0.4) back as samples.

import type { RunningServer } from './server.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** GET <url><mount>/metrics; returns the status, headers and body text. */
export async function scrape(
  server: RunningServer,
  opts: { mountPath?: string; authorization?: string; method?: string } = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string> = opts.authorization === undefined ? {} : { authorization: opts.authorization };
  const res = await fetch(`${server.url}${opts.mountPath ?? ''}/metrics`, { method: opts.method ?? 'GET', headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample line of an exposition (comments skipped). Throws on a line that is not a sample. */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[name as string] = (value as string).replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one sample with this name whose labels include `labels`, or undefined. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** Waits until `check` passes on a fresh scrape (the request that was just answered is recorded on its 'close'). */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}
