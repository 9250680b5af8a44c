// The invariants a single answer must keep, and the list of every one broken during a run. An answer may be any
// 4xx; a 5xx only where documented (docs/s3-compatibility.md, "A full disk"): 507 InsufficientStorage for writes,
// and for deletes and other metadata commits only when the volume really filled (never while the free-space reserve
// holds); 503 SlowDown / ServiceUnavailable. A well-formed request from a well-behaved client is always answered.

/** What a request does to the data volume: adds object bytes, commits metadata only, or reads. */
export type WriteKind = 'object-write' | 'metadata' | 'read';

export interface Violation {
  invariant: string;
  op: string;
  fault: string;
  status?: number | undefined;
  code?: string | undefined;
  requestId?: string | undefined;
  detail: string;
}

/** Every broken invariant of a run, in order. */
export class Violations {
  readonly list: Violation[] = [];

  add(v: Violation): void {
    this.list.push(v);
  }

  /** One line per violation (the first `max`), for the failure message. */
  format(max = 200): string {
    const lines = this.list
      .slice(0, max)
      .map(
        (v) =>
          `  [${v.invariant}] ${v.op} fault=${v.fault}${v.status !== undefined ? ` status=${v.status}` : ''}${v.code ? ` code=${v.code}` : ''}` +
          `${v.requestId ? ` request-id=${v.requestId}` : ''}: ${v.detail}`,
      );
    if (this.list.length > max) lines.push(`  ... and ${this.list.length - max} more`);
    return lines.join('\n');
  }
}

/**
 * Why a status is not allowed for this request, or undefined when it is. `reserveHolds`: the server runs with a
 * free-space reserve and the harness never filled the volume past it, so no metadata commit may find it full.
 */
export function disallowedStatus(
  answer: { status: number; code: string | undefined },
  kind: WriteKind,
  reserveHolds: boolean,
): string | undefined {
  const { status, code } = answer;
  if (status < 500) return undefined;
  if (status === 503 && (code === 'SlowDown' || code === 'ServiceUnavailable')) return undefined;
  if (status === 507 && code === 'InsufficientStorage') {
    if (kind === 'object-write') return undefined;
    if (kind === 'metadata' && !reserveHolds) return undefined;
    return kind === 'metadata'
      ? 'a metadata commit found the volume full although the free-space reserve should have kept room for it'
      : 'a read was refused for a full volume';
  }
  return `a ${status} answer (only 507 InsufficientStorage and 503 are documented)`;
}
