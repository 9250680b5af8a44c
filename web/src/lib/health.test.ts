import { describe, expect, it } from 'vitest';
import { integrityHealth, replicationHealth } from './health';

const NOW = Date.parse('2030-06-01T12:00:00Z');

describe('replication health', () => {
  it('is never green while the last drain failed or intents wait', () => {
    expect(replicationHealth({ enabled: false }, NOW).tone).toBeUndefined();
    const failedDrain = replicationHealth(
      { enabled: true, outbox: { pending: 5 }, lastDrain: { at: '2030-06-01T11:59:00Z', errorClass: 'unreachable' } },
      NOW,
    );
    expect(failedDrain).toEqual({ value: 'Last drain failed', detail: 'unreachable; 5 pending', tone: 'bad' });
    expect(replicationHealth({ enabled: true, outbox: { pending: 5, inflight: 1 } }, NOW)).toMatchObject({
      value: '6 pending',
      tone: 'warn',
    });
    expect(replicationHealth({ enabled: true, outbox: { failed: 2 } }, NOW)).toMatchObject({ tone: 'bad' });
    expect(
      replicationHealth(
        { enabled: true, outbox: {}, lastDrain: { at: '2030-06-01T11:59:00Z', errorClass: null } },
        NOW,
      ),
    ).toEqual({ value: 'In sync', detail: 'Last drain 1 min ago', tone: 'ok' });
  });
});

describe('integrity health', () => {
  it('warns about unchecked versions and is green only when everything was verified', () => {
    expect(integrityHealth({ enabled: true, counts: { ok: 0, corrupt: 0, unchecked: 4000 } }, NOW)).toEqual({
      value: '4,000 unchecked',
      detail: '0 verified; No full pass yet',
      tone: 'warn',
    });
    expect(integrityHealth({ counts: { ok: 3, corrupt: 1 } }, NOW).tone).toBe('bad');
    expect(integrityHealth({ counts: {} }, NOW)).toMatchObject({ value: 'Nothing to check', tone: undefined });
    expect(integrityHealth({ counts: { ok: 10 }, lastFullPass: { finishedAt: '2030-06-01T11:00:00Z' } }, NOW)).toEqual({
      value: '10 verified',
      detail: 'Last full pass 1 h ago',
      tone: 'ok',
    });
  });
});
