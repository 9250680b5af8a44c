import { describe, expect, it } from 'vitest';
import { ApiError, describeError } from '../api/errors';
import { runAction, type ActionReport } from './use-action';

/** A report that records every state change in order, and what the state was when the action ran. */
function recorder(): ActionReport & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    setBusy: (busy) => events.push(`busy=${busy}`),
    setError: (error) => events.push(`error=${error ?? ''}`),
    describe: describeError,
  };
}

describe('runAction', () => {
  it('is busy with no error while the action runs, then not busy, and reports success', async () => {
    const report = recorder();
    const ok = await runAction(async () => report.events.push('action'), report);
    expect(ok).toBe(true);
    expect(report.events).toEqual(['busy=true', 'error=', 'action', 'busy=false']);
  });

  it('describes a failure into the error, clears busy and reports failure without rejecting', async () => {
    const report = recorder();
    const ok = await runAction(async () => {
      throw new ApiError(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty');
    }, report);
    expect(ok).toBe(false);
    expect(report.events).toEqual([
      'busy=true',
      'error=',
      `error=${describeError(new ApiError(409, 'BucketNotEmpty', ''))}`,
      'busy=false',
    ]);
  });

  it("uses the caller's own sentences when given them", async () => {
    const report = {
      ...recorder(),
      describe: (err: unknown) =>
        err instanceof ApiError && err.status === 401 ? 'Wrong username or password.' : 'other',
    };
    await runAction(async () => {
      throw new ApiError(401, 'Unauthorized', 'Invalid credentials');
    }, report);
    expect(report.events).toContain('error=Wrong username or password.');
  });

  it('clears the previous error before the next run', async () => {
    const report = recorder();
    await runAction(async () => {
      throw new Error('first');
    }, report);
    report.events.length = 0;
    await runAction(async () => undefined, report);
    expect(report.events).toEqual(['busy=true', 'error=', 'busy=false']);
  });
});
