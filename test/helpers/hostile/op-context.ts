// What an operation of the hostile harness works with: the server, identities and buckets, the ledger of writes, and
// send(), the one path every request takes: it applies the header faults, holds writes at the gate, sends, counts
// the answer and checks the invariants every answer must keep (violations.ts).

import type { RunningServer } from '../server.js';
import { applyHeaderFault, deliveryFor, faultLabel, isClean, type Fault } from './faults.js';
import type { Ledger } from './model.js';
import type { Delivery, RawClient, WireRequest, WireResult } from './raw-client.js';
import type { Rng } from './rng.js';
import type { Identity } from './s3-wire.js';
import type { Tally } from './tally.js';
import { disallowedStatus, type Violation, type Violations, type WriteKind } from './violations.js';
import type { WriteGate } from './write-gate.js';

export interface Buckets {
  /** Unversioned; the scoped key may use it. */
  plain: string;
  /** Versioning enabled. */
  versioned: string;
  /** Never created: requests to it are refused before their body is read. */
  missing: string;
}

/** Shared by every worker of one configuration. */
export interface RunShared {
  server: RunningServer;
  seed: number;
  root: Identity;
  scoped: Identity;
  /** An admin access token (Bearer). */
  token: string;
  buckets: Buckets;
  ledger: Ledger;
  gate: WriteGate;
  tally: Tally;
  violations: Violations;
  /** True while the free-space reserve is on: then no metadata commit may find the volume full. */
  reserveHolds: boolean;
}

/** One request as an operation sends it. */
export interface Call {
  op: string;
  fault: Fault;
  wire: WireRequest;
  /** How the client behaves; default: as the fault says (deliveryFor). */
  delivery?: Delivery;
  kind: WriteKind;
  /** Bytes the request may add to the volume (for the filler's margin); default: the wire body's length. */
  bytes?: number;
}

/** The plan item a request belongs to, as send() needs it: its stream (for header garbage) and its phase. */
export interface ItemRef {
  rng: Rng;
  phase: string;
}

/** An answer: the wire result, its status (0: none), error code and request id. */
export interface Answer extends WireResult {
  status: number;
  code: string | undefined;
  requestId: string | undefined;
  /**
   * The answer is the server's 400 for the garbage sent after the body, written before the answer to the request
   * itself (Node's parse error path writes it at once): it says nothing about the request, which may have succeeded.
   */
  answersGarbage: boolean;
}

const HEADER_FAULTS = new Set(['bad-auth', 'header-garbage', 'duplicate-length', 'huge-header']);

/** A worker's view: the shared run plus its own connection. */
export class OpContext {
  constructor(
    readonly run: RunShared,
    readonly conn: RawClient,
  ) {}

  get server(): RunningServer {
    return this.run.server;
  }

  /** Sends one request and checks what every answer must keep. Never rejects. */
  async send(call: Call, item: ItemRef): Promise<Answer> {
    const wire = HEADER_FAULTS.has(call.fault.kind)
      ? applyHeaderFault(call.wire, call.fault.kind, item.rng)
      : call.wire;
    const release =
      call.kind === 'object-write' ? await this.run.gate.enter(call.bytes ?? wire.body.length) : () => undefined;
    let result: WireResult;
    try {
      result = await this.conn.exchange(wire, call.delivery ?? deliveryFor(call.fault.kind, wire.body, item.rng));
    } finally {
      release();
    }
    const response = result.response;
    const answer: Answer = {
      ...result,
      status: response?.status ?? 0,
      code: response ? errorCode(response.body, response.headers['content-type']) : undefined,
      requestId: response?.headers['x-amz-request-id'] ?? response?.headers['x-request-id'],
      answersGarbage:
        call.delivery?.garbageAfter !== undefined && response?.status === 400 && answerToUnparsed(response.body),
    };
    const label = faultLabel(call.fault);
    const status = response ? String(answer.status) : `no-answer:${result.failure}`;
    this.run.tally.record({
      op: call.op,
      fault: label,
      status,
      ms: result.ms,
      phase: item.phase,
      clean: isClean(call.fault),
    });
    if (answer.answersGarbage) this.run.tally.byStatus.add('400-for-the-garbage-first');
    const base = { op: call.op, fault: label, status: answer.status, code: answer.code, requestId: answer.requestId };
    if (response) {
      const why = disallowedStatus(answer, call.kind, this.run.reserveHolds);
      if (why)
        this.fail({ ...base, invariant: 'no-5xx', detail: `${why}: ${response.body.toString('utf8').slice(0, 300)}` });
    } else if (isClean(call.fault) && result.failure !== 'stopped') {
      const where = result.reusedAfter
        ? `; on a keep-alive connection after ${result.reusedAfter}`
        : ' on a new connection';
      const what = `${wire.method} ${wire.path.slice(0, 120)}${where}`;
      this.fail({
        ...base,
        invariant: 'answered',
        detail: `a well-formed request got no answer (${result.failure} after ${result.ms.toFixed(0)} ms): ${what}`,
      });
    }
    return answer;
  }

  fail(v: Violation): void {
    this.run.violations.add(v);
  }
}

/** Whether a body is the answer to a request Node could not parse (src/http/http-server.ts, clientErrorHandler). */
function answerToUnparsed(body: Buffer): boolean {
  return body.includes('could not be parsed as HTTP/1.1');
}

/** The <Code> of an S3 error document or the `error` of an admin envelope. */
function errorCode(body: Buffer, contentType: string | undefined): string | undefined {
  if (body.length === 0 || body.length > 64 * 1024) return undefined;
  const text = body.toString('utf8');
  if (/json/.test(contentType ?? '')) return /"error"\s*:\s*"([^"]+)"/.exec(text)?.[1];
  return /<Error>[\s\S]*?<Code>([^<]*)<\/Code>/.exec(text)?.[1];
}
