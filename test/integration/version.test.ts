// `store --version` and GET /api/admin/version tell the same version and commit (both read lib/build-info.ts).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signIn } from '../helpers/admin-flow.js';
import { REPO_ROOT } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

const store = useStore();

describe('the version', () => {
  it('is the same from the command line and from the admin API', async () => {
    const line = execFileSync(process.execPath, [join(REPO_ROOT, 'bin/store.js'), '--version'], { cwd: REPO_ROOT })
      .toString()
      .trim();
    const { token } = await signIn(store.server);
    const api = (await (
      await fetch(`${store.server.url}/api/admin/version`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as Record<string, string>;
    expect(line).toBe(`store ${api['version']} (commit ${api['build']})`);
    expect(api['version']).toMatch(/^\d+\.\d+\.\d+/);
    expect(api['build']).toMatch(/^([0-9a-f]{40}|unknown)$/);
  });
});
