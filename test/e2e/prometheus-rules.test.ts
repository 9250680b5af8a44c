// The example alerting rules (packaging/prometheus/store-alerts.yml, shown in docs/operations.md) are valid
// (`promtool check rules`), each fires on the series it is meant for and not on others (`promtool test rules` with
// test/e2e/store-alerts*.promtest.yml), every alert has such a case, and every Store metric they name exists in a
// real scrape of a server with the scrubber on (so a renamed metric cannot leave an alert that never fires).

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { scrape } from '../helpers/metrics-scrape.js';
import { REPO_ROOT } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

const PROMTOOL = '/usr/bin/promtool';
const RULES = join(REPO_ROOT, 'packaging/prometheus/store-alerts.yml');
const CASES = ['store-alerts.promtest.yml', 'store-alerts-daily.promtest.yml'].map((f) =>
  join(REPO_ROOT, 'test/e2e', f),
);

const promtool = (args: string[]): Promise<{ code: number; output: string }> =>
  promisify(execFile)(PROMTOOL, args, { encoding: 'utf8', timeout: 60_000 }).then(
    (r) => ({ code: 0, output: `${r.stdout}${r.stderr}` }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? -1,
      output: `${err.stdout ?? ''}${err.stderr ?? ''}`,
    }),
  );

describe('example Prometheus alerts', () => {
  const rules = readFileSync(RULES, 'utf8');
  const store = useStore({ env: { METRICS_MODE: 'public', STORE_INTEGRITY_SCRUB_ENABLED: 'true' } });

  beforeAll(() => {
    expect(existsSync(PROMTOOL), `${PROMTOOL} is missing: apt-get install prometheus (the CI script installs it)`).toBe(
      true,
    );
  });

  it('pass promtool check rules without findings', async () => {
    const res = await promtool(['check', 'rules', RULES]);
    expect(res, res.output).toMatchObject({ code: 0 });
    expect(res.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(res.output).not.toMatch(/WARNING|FAILED/);
  });

  it('fire on the series meant to fire them and on no others (promtool test rules)', async () => {
    const res = await promtool(['test', 'rules', ...CASES]);
    expect(res.code, res.output).toBe(0);
    const alerts = new Set([...rules.matchAll(/^\s*- alert: (\w+)/gm)].map((m) => m[1]));
    const tested = new Set(
      CASES.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/alertname: (\w+)/g)].map((m) => m[1])),
    );
    expect([...alerts].filter((a) => !tested.has(a))).toEqual([]);
  });

  it('name only metrics that a real Store exports', async () => {
    const res = await scrape(store.server);
    expect(res.status).toBe(200);
    const exported = new Set([...res.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const named = new Set([...rules.matchAll(/\b(store_[a-z0-9_]+)/g)].map((m) => m[1] as string));
    expect(named.size).toBeGreaterThan(8);
    // A counter's family is exported without `_total` in some registries; accept either spelling.
    expect([...named].filter((n) => !exported.has(n) && !exported.has(n.replace(/_total$/, '')))).toEqual([]);
  });
});
