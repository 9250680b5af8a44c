// The hostile harness's faults: what a request gets wrong and how. Body faults (a cut, garbage after the body, a
// trickle), aws-chunked faults (a wrong chunk or trailer, a lying decoded length), answer faults (a client that stops
// reading), header garbage, and early refusals (a missing bucket or upload, a failed precondition) that make the
// server answer before it reads the body. Each operation draws from the faults that apply to it.

import type { Delivery, WireRequest } from './raw-client.js';
import type { Rng } from './rng.js';

export const FAULT_KINDS = [
  'none',
  'slow-body',
  'cut-body',
  'extra-bytes',
  'trickle',
  'stop-reading',
  'bad-chunk-signature',
  'bad-trailer-checksum',
  'bad-trailer-signature',
  'decoded-length-larger',
  'decoded-length-smaller',
  'bad-auth',
  'header-garbage',
  'duplicate-length',
  'huge-header',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Makes the server refuse early, before it reads the body: where a body nobody consumes used to go wrong. */
export type EarlyRefusal = 'missing-bucket' | 'missing-upload' | 'failed-precondition';

export interface Fault {
  kind: FaultKind;
  early: EarlyRefusal | undefined;
}

export const NO_FAULT: Fault = { kind: 'none', early: undefined };

/** The fault's label in the summary and in failure messages. */
export function faultLabel(f: Fault): string {
  return f.early ? `${f.kind}+${f.early}` : f.kind;
}

/** Whether the request is well-formed and its client well-behaved (if slow): then it must be answered. */
export function isClean(f: Fault): boolean {
  return f.kind === 'none' || f.kind === 'slow-body';
}

/** What a request is, for the faults it can carry. */
export interface RequestShape {
  hasBody: boolean;
  signedChunks: boolean;
  trailer: boolean;
  chunked: boolean;
  /** Its answer has a body worth not reading (a download, a listing). */
  readsBody: boolean;
}

/** A request without a body whose answer is small. */
export const BODILESS: RequestShape = {
  hasBody: false,
  signedChunks: false,
  trailer: false,
  chunked: false,
  readsBody: false,
};
/** A request without a body whose answer may be large. */
export const DOWNLOAD: RequestShape = { ...BODILESS, readsBody: true };
/** A request with a plain body. */
export const WITH_BODY: RequestShape = { ...BODILESS, hasBody: true };

/** Faults a request can carry, by what it is. */
export function applicableFaults(shape: RequestShape): FaultKind[] {
  const kinds: FaultKind[] = ['bad-auth', 'header-garbage', 'duplicate-length', 'huge-header'];
  if (shape.hasBody) kinds.push('cut-body', 'cut-body', 'extra-bytes', 'trickle', 'slow-body');
  if (shape.chunked) kinds.push('decoded-length-larger', 'decoded-length-smaller');
  if (shape.signedChunks) kinds.push('bad-chunk-signature', 'bad-chunk-signature', 'bad-chunk-signature');
  if (shape.trailer) kinds.push('bad-trailer-checksum');
  if (shape.trailer && shape.signedChunks) kinds.push('bad-trailer-signature');
  if (shape.readsBody) kinds.push('stop-reading', 'stop-reading');
  return kinds;
}

/**
 * What a fault is drawn for: a plan item's stream, operation and phase, and what the run leaves out (HOSTILE_SKIP:
 * fault kinds and early refusals, alone or as `<operation>:<kind>`).
 */
export interface FaultDraw {
  rng: Rng;
  op: string;
  phase: 'normal' | 'pressure' | 'burst' | 'surge';
  skip: ReadonlySet<string>;
}

function skipped(item: FaultDraw, kind: string): boolean {
  return item.skip.has(kind) || item.skip.has(`${item.op}:${kind}`);
}

/**
 * Draws a fault for a request of `shape`: none with probability 1 - `rate`, else one that applies. A fault the run
 * skips is drawn all the same (so the rest of the plan does not change) and then left out.
 */
export function drawFault(item: FaultDraw, shape: RequestShape, rate: number): FaultKind {
  const kind = item.rng.chance(rate) ? item.rng.pick(applicableFaults(shape)) : 'none';
  return skipped(item, kind) ? 'none' : kind;
}

/**
 * An upload's fault: as drawFault, except that under disk pressure many large uploads (half of a burst's) come from
 * slow (but steady) clients, whose bodies take several of the reserve's 250 ms free-space readings to arrive.
 */
export function drawUploadFault(item: FaultDraw, opts: { shape: RequestShape; rate: number; size: number }): FaultKind {
  const p = item.phase === 'pressure' ? 0.3 : 0.5;
  if (item.phase !== 'normal' && opts.size >= 1024 * 1024 && item.rng.chance(p))
    return skipped(item, 'slow-body') ? 'none' : 'slow-body';
  return drawFault(item, opts.shape, opts.rate);
}

/**
 * An early refusal to go with a fault: often with a broken aws-chunked body (the server then answers before it reads
 * the body, and the broken chunk arrives with nobody reading), now and then with anything else.
 */
export function earlyFor(item: FaultDraw, kind: FaultKind, choices: readonly EarlyRefusal[]): EarlyRefusal | undefined {
  const p =
    kind === 'bad-chunk-signature' || kind.startsWith('decoded-length') || kind.startsWith('bad-trailer') ? 0.4 : 0.05;
  const early = choices.length > 0 && item.rng.chance(p) ? item.rng.pick(choices) : undefined;
  return early !== undefined && skipped(item, early) ? undefined : early;
}

/** Header garbage: a wrong Authorization, random bytes in a header, a duplicate Content-Length, a huge header. */
export function applyHeaderFault(wire: WireRequest, kind: FaultKind, rng: Rng): WireRequest {
  const headers = [...wire.headers];
  const set = (name: string, value: string): void => {
    const at = headers.findIndex(([k]) => k.toLowerCase() === name);
    if (at >= 0) headers[at] = [name, value];
    else headers.push([name, value]);
  };
  if (kind === 'bad-auth') {
    set(
      'authorization',
      rng.pick([
        'AWS4-HMAC-SHA256 Credential=garbage',
        `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20200101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${'0'.repeat(64)}`,
        'Bearer not-a-token',
        rng
          .bytes(rng.int(1, 200))
          .toString('latin1')
          .replace(/[\r\n]/g, ' '),
        '',
      ]),
    );
  } else if (kind === 'header-garbage') {
    // Any byte but CR and LF, mostly; now and then CR or LF too, which breaks the framing itself.
    const bytes = rng.bytes(rng.int(1, 300)).toString('latin1');
    const value = rng.chance(0.8) ? bytes.replace(/[\r\n]/g, '\t') : bytes;
    const name = rng.pick([
      'x-amz-meta-junk',
      'user-agent',
      'content-type',
      'x-amz-date',
      'range',
      'x-amz-content-sha256',
      'content-md5',
    ]);
    set(name, value);
  } else if (kind === 'duplicate-length') {
    const length = headers.find(([k]) => k.toLowerCase() === 'content-length')?.[1] ?? '0';
    headers.push(['Content-Length', rng.chance(0.5) ? length : String(Number(length) + rng.int(1, 1000))]);
  } else if (kind === 'huge-header') {
    headers.push(['x-amz-meta-pad', 'a'.repeat(rng.int(17 * 1024, 64 * 1024))]);
  }
  return { ...wire, headers };
}

/** The delivery of a request carrying `kind`: cut points, garbage, trickle pace and read stalls drawn from `rng`. */
export function deliveryFor(kind: FaultKind, body: Buffer, rng: Rng): Delivery {
  if (kind === 'cut-body' && body.length > 0) {
    return { cut: { at: rng.int(0, body.length - 1), how: rng.chance(0.5) ? 'reset' : 'fin' }, timeoutMs: 15_000 };
  }
  if (kind === 'extra-bytes') {
    const garbage = rng.chance(0.5)
      ? rng.bytes(rng.int(1, 2000))
      : Buffer.from(`GARBAGE / HTTP/1.1\r\n${'x'.repeat(rng.int(0, 100))}\r\n\r\n`);
    return { garbageAfter: garbage, timeoutMs: 30_000 };
  }
  if (kind === 'slow-body') {
    // A slow but steady client: the body in about 40 pieces, 5-25 ms apart (well within the slow-body limit).
    return {
      trickle: { bytes: Math.max(16 * 1024, Math.ceil(body.length / 40)), everyMs: rng.int(5, 25) },
      timeoutMs: 60_000,
    };
  }
  if (kind === 'trickle') {
    // Short and bounded: at most 20 pieces, ~1 s in all (the server's slow-body limit is 20 s plus the pace).
    return {
      trickle: { bytes: Math.max(1, Math.ceil(body.length / rng.int(4, 20))), everyMs: rng.int(20, 60) },
      timeoutMs: 30_000,
    };
  }
  if (kind === 'stop-reading') {
    return { stopReading: { afterBytes: rng.int(0, 512 * 1024), holdMs: rng.int(50, 1500) }, timeoutMs: 30_000 };
  }
  return { timeoutMs: kind === 'none' ? 60_000 : 15_000 };
}

/**
 * Whether a body cut at `at` of `length` bytes may still have been stored: every payload byte was sent and only the
 * last `framingTail` bytes of framing were not (the final aws-chunked chunk and trailer, a form's closing boundary).
 * A raw body (framingTail 0) cut anywhere never can: the server must not store a body shorter than declared.
 */
export function cutMayCommit(cut: { at: number; length: number; framingTail: number }): boolean {
  return cut.framingTail > 0 && cut.at >= cut.length - cut.framingTail;
}
