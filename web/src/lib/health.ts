// What the health tiles and status pages say, and in which colour: a colour follows the real state, so a failed
// drain, a backlog or versions never checked are never green. Pure (unit-tested in Node). docs/console.md, "Health".

import { formatCount, formatDuration, formatRelative } from './format';

export type Tone = 'ok' | 'warn' | 'bad' | undefined;

export interface Health {
  value: string;
  detail: string;
  tone: Tone;
}

export interface ReplicationFacts {
  enabled?: boolean;
  targetBucket?: string;
  outbox?: { pending?: number; inflight?: number; failed?: number };
  oldestPendingAgeSeconds?: number | null;
  lastDrain?: { at?: string; count?: number; errorClass?: string | null } | null;
}

/** Replication: off; failed intents or a failed last drain (bad); a backlog (warn); in sync (ok). */
export function replicationHealth(s: ReplicationFacts, now: number): Health {
  if (!s.enabled) return { value: 'Off', detail: 'Replication is not configured', tone: undefined };
  const failed = s.outbox?.failed ?? 0;
  const pending = (s.outbox?.pending ?? 0) + (s.outbox?.inflight ?? 0);
  const drainError = s.lastDrain?.errorClass ?? undefined;
  const when = s.lastDrain?.at ? `Last drain ${formatRelative(s.lastDrain.at, now)}` : 'No drain yet';
  if (failed > 0) return { value: `${formatCount(failed)} failed`, detail: when, tone: 'bad' };
  if (drainError)
    return {
      value: 'Last drain failed',
      detail: `${drainError}${pending > 0 ? `; ${formatCount(pending)} pending` : ''}`,
      tone: 'bad',
    };
  if (pending > 0) {
    const age = s.oldestPendingAgeSeconds ? `, oldest ${formatDuration(s.oldestPendingAgeSeconds)}` : '';
    return { value: `${formatCount(pending)} pending`, detail: `Not yet at the target${age}`, tone: 'warn' };
  }
  return { value: 'In sync', detail: when, tone: 'ok' };
}

export interface IntegrityFacts {
  enabled?: boolean;
  counts?: { ok?: number; corrupt?: number; unchecked?: number };
  currentPass?: { percent?: number } | null;
  lastFullPass?: { finishedAt?: string | null } | null;
}

/** Integrity: corrupt versions (bad); versions never checked (warn); every version verified (ok). */
export function integrityHealth(s: IntegrityFacts, now: number): Health {
  const corrupt = s.counts?.corrupt ?? 0;
  const ok = s.counts?.ok ?? 0;
  const unchecked = s.counts?.unchecked ?? 0;
  const detail = s.currentPass
    ? `Scrub running, ${Math.round(s.currentPass.percent ?? 0)}%`
    : s.lastFullPass?.finishedAt
      ? `Last full pass ${formatRelative(s.lastFullPass.finishedAt, now)}`
      : s.enabled
        ? 'No full pass yet'
        : 'Scrubber off';
  if (corrupt > 0) return { value: `${formatCount(corrupt)} corrupt`, detail, tone: 'bad' };
  if (unchecked > 0)
    return {
      value: `${formatCount(unchecked)} unchecked`,
      detail: `${formatCount(ok)} verified; ${detail}`,
      tone: 'warn',
    };
  if (ok === 0) return { value: 'Nothing to check', detail, tone: undefined };
  return { value: `${formatCount(ok)} verified`, detail, tone: 'ok' };
}
