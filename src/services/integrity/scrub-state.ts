// The scrubber's persisted state: the pass in progress (its cursor, so a restart resumes where it stopped) and the
// last finished pass. Kept as one JSON value in the instance table, written in the transaction that records results.

import type { InstanceRepo } from '../../storage/db/instance-repo.js';

export type PassTrigger = 'scheduled' | 'manual';

export interface PassProgress {
  startedAt: number;
  trigger: PassTrigger;
  /** Row id of the last version checked: the walk resumes above it. */
  cursor: number;
  objectsChecked: number;
  bytesChecked: number;
  corruptFound: number;
  repaired: number;
  /** Versions with bytes, and their bytes, when the pass started (the denominator of its progress). */
  objectsTotal: number;
  bytesTotal: number;
}

export interface FinishedPass extends Omit<PassProgress, 'cursor' | 'objectsTotal' | 'bytesTotal'> {
  finishedAt: number;
}

export interface ScrubState {
  current?: PassProgress | undefined;
  last?: FinishedPass | undefined;
}

const NAME = 'integrity.scrub';

/** Reads the state; an unreadable value (never written, or damaged) is a fresh start. */
export function loadScrubState(instance: InstanceRepo): ScrubState {
  const raw = instance.get(NAME);
  if (raw === undefined) return {};
  try {
    const parsed = JSON.parse(raw) as ScrubState;
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

/** Writes the state. Call inside the transaction that records the results it accounts for. */
export function saveScrubState(instance: InstanceRepo, state: ScrubState): void {
  instance.set(NAME, JSON.stringify(state));
}
