// What the hostile harness sent and what the server acknowledged, per key: every write attempt with the bodies it
// may have stored and how it ended, and every delete. The invariant "every acknowledged write reads back
// byte-exact" is checked against this (invariants.ts), during the run and at its end.

import { createHash } from 'node:crypto';
import { bodyBytes } from './rng.js';

/** A body by the ids of its pieces (one for a PUT, one per part for a multipart upload): made again on demand. */
export interface BodySpec {
  parts: { id: string; size: number }[];
  size: number;
  sha256: string;
  /** Hex MD5: the ETag of a single-part write. */
  md5: string;
}

/** A write's end: acknowledged (2xx), refused (a complete 4xx answer: nothing stored), or unknown (anything else). */
export type Outcome = 'pending' | 'acked' | 'refused' | 'unknown';

export interface WriteAttempt {
  bucket: string;
  key: string;
  /** What the write may store: one body, or for a copy every body its source may have held. */
  bodies: BodySpec[];
  outcome: Outcome;
  versionId: string | undefined;
  /** The operation and fault, for failure messages. */
  via: string;
  /** How it ended: the status and request id, or why there was no answer (for failure messages). */
  answer?: string | undefined;
  /** A copy's source: while the copy runs, the key may also get any body its source holds meanwhile. */
  copyOf?: { bucket: string; key: string } | undefined;
}

interface KeyHistory {
  attempts: WriteAttempt[];
  deletes: number;
}

/** Makes a body: its bytes and its spec. */
export function makeBody(seed: number, parts: { id: string; size: number }[]): { spec: BodySpec; bytes: Buffer } {
  const bytes = Buffer.concat(parts.map((p) => bodyBytes(seed, p.id, p.size)));
  return { bytes, spec: { parts, size: bytes.length, sha256: hash('sha256', bytes), md5: hash('md5', bytes) } };
}

/** The bytes of a body made earlier. */
export function bytesOf(seed: number, spec: BodySpec): Buffer {
  return Buffer.concat(spec.parts.map((p) => bodyBytes(seed, p.id, p.size)));
}

export function hash(algorithm: 'sha256' | 'md5', data: Buffer): string {
  return createHash(algorithm).update(data).digest('hex');
}

/** The ledger of one run. */
export class Ledger {
  private readonly keys = new Map<string, KeyHistory>();
  private readonly bodies = new Map<string, BodySpec>();

  /** Records a write before its first byte is sent. */
  begin(input: {
    bucket: string;
    key: string;
    bodies: BodySpec[];
    via: string;
    copyOf?: { bucket: string; key: string };
  }): WriteAttempt {
    const attempt: WriteAttempt = { ...input, outcome: 'pending', versionId: undefined };
    this.history(input.bucket, input.key).attempts.push(attempt);
    for (const b of input.bodies) {
      this.bodies.set(b.sha256, b);
      this.bodies.set(b.md5, b);
    }
    return attempt;
  }

  /** Records a delete of the key (DeleteObject, DeleteObjects), whatever its answer: the key is no longer stable. */
  deleted(bucket: string, key: string): void {
    this.history(bucket, key).deletes++;
  }

  /** Every body the key may hold now: those of writes not refused (and what the sources of copies running hold). */
  candidates(bucket: string, key: string, depth = 0): BodySpec[] {
    return (this.keys.get(`${bucket}/${key}`)?.attempts ?? [])
      .filter((a) => a.outcome !== 'refused')
      .flatMap((a) =>
        a.copyOf && a.outcome === 'pending' && depth < 3
          ? [...a.bodies, ...this.candidates(a.copyOf.bucket, a.copyOf.key, depth + 1)]
          : a.bodies,
      );
  }

  /** Writes the server refused: their bodies are never to be seen. */
  refused(bucket: string, key: string): WriteAttempt[] {
    return (this.keys.get(`${bucket}/${key}`)?.attempts ?? []).filter((a) => a.outcome === 'refused');
  }

  /** A body by its SHA-256 or MD5 (hex), if the run made it. */
  body(digest: string): BodySpec | undefined {
    return this.bodies.get(digest);
  }

  /**
   * The one body the key must hold, when exactly one write to it can have stored anything, that write was
   * acknowledged with a single body, and the key was never deleted.
   */
  exact(bucket: string, key: string): WriteAttempt | undefined {
    const h = this.keys.get(`${bucket}/${key}`);
    if (!h || h.deletes > 0) return undefined;
    const live = h.attempts.filter((a) => a.outcome !== 'refused');
    return live.length === 1 && live[0]?.outcome === 'acked' && live[0].bodies.length === 1 ? live[0] : undefined;
  }

  /** Every key with any attempt or delete, as [bucket, key]. */
  allKeys(): [string, string][] {
    return [...this.keys.keys()].map((k) => {
      const slash = k.indexOf('/');
      return [k.slice(0, slash), k.slice(slash + 1)];
    });
  }

  /** Acknowledged writes that returned a version id (versioned bucket): each version must read back exactly. */
  ackedVersions(): WriteAttempt[] {
    return [...this.keys.values()]
      .flatMap((h) => h.attempts)
      .filter((a) => a.outcome === 'acked' && a.versionId !== undefined && a.versionId !== 'null');
  }

  /** Counts of attempts by outcome. */
  tally(): Record<Outcome, number> {
    const t: Record<Outcome, number> = { pending: 0, acked: 0, refused: 0, unknown: 0 };
    for (const h of this.keys.values()) for (const a of h.attempts) t[a.outcome]++;
    return t;
  }

  private history(bucket: string, key: string): KeyHistory {
    const id = `${bucket}/${key}`;
    let h = this.keys.get(id);
    if (!h) {
      h = { attempts: [], deletes: 0 };
      this.keys.set(id, h);
    }
    return h;
  }
}
