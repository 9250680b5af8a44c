// The webhook keys through loadConfig: defaults, the boot refusals of SPEC "Errors", and no value echoed.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configEnv as env, configProblems as problems } from '../../test/helpers/config-env.js';
import { loadConfig } from './config.js';
import { webhookEventNames } from './webhook-config.js';

const SECRET = randomBytes(33).toString('base64url');

describe('webhook configuration', () => {
  it('is off by default with the spec defaults for the tunables', () => {
    const cfg = loadConfig(env({}));
    expect(cfg.WEBHOOK_URL).toBeUndefined();
    expect(cfg).toMatchObject({ WEBHOOK_MAX_ATTEMPTS: 8, WEBHOOK_TIMEOUT_MS: 5000, WEBHOOK_POLL_MS: 15_000 });
    expect(webhookEventNames(cfg)).toEqual(['object.created', 'object.deleted', 'multipart.completed']);
  });

  it('accepts https anywhere and http to loopback hosts only', () => {
    for (const url of [
      'https://hooks.example.net/store',
      'http://127.0.0.1:8080/h',
      'http://localhost/h',
      'http://[::1]:9/h',
      'http://127.255.0.9/',
    ]) {
      expect(problems({ WEBHOOK_URL: url, WEBHOOK_SECRET: SECRET }), url).toEqual([]);
    }
    for (const url of [
      'http://hooks.example.net/h',
      'http://10.0.0.1/h',
      'http://127.0.0.1.nip.io/h',
      'http://localhost.example/h',
      'ftp://127.0.0.1/',
      'file:///tmp/x',
    ]) {
      const found = problems({ WEBHOOK_URL: url, WEBHOOK_SECRET: SECRET });
      expect(found, url).toEqual([
        'WEBHOOK_URL must be https, or http to a loopback host (localhost, 127.0.0.0/8, [::1])',
      ]);
    }
    expect(problems({ WEBHOOK_URL: 'not a url', WEBHOOK_SECRET: SECRET })[0]).toMatch(
      /^WEBHOOK_URL must be an absolute URL/,
    );
  });

  it('never echoes the URL (it may carry credentials) or the secret', () => {
    const url = 'http://user:hunter2-pass@hooks.example.net/h';
    const found = problems({ WEBHOOK_URL: url, WEBHOOK_SECRET: 'short-secret-xyz' }).join('\n');
    expect(found).toContain('WEBHOOK_URL');
    expect(found).toContain('WEBHOOK_SECRET must be at least 32 characters');
    expect(found).not.toContain('hunter2');
    expect(found).not.toContain('hooks.example.net');
    expect(found).not.toContain('short-secret-xyz');
  });

  it('requires a strong secret with a URL', () => {
    expect(problems({ WEBHOOK_URL: 'https://h.example/' })).toEqual([
      'WEBHOOK_SECRET is required when WEBHOOK_URL is set',
    ]);
    expect(problems({ WEBHOOK_URL: 'https://h.example/', WEBHOOK_SECRET: 'x'.repeat(40) })).toEqual([
      'WEBHOOK_SECRET must not be a single repeated character',
    ]);
    expect(problems({ WEBHOOK_URL: 'https://h.example/', WEBHOOK_SECRET: 'a'.repeat(31) + 'b' })[0]).toMatch(
      /^WEBHOOK_SECRET/,
    );
    // exactly 32 strong characters is enough
    expect(problems({ WEBHOOK_URL: 'https://h.example/', WEBHOOK_SECRET: randomBytes(24).toString('base64') })).toEqual(
      [],
    );
  });

  it('parses WEBHOOK_EVENTS as a comma list and refuses unknown names', () => {
    const cfg = loadConfig(env({ WEBHOOK_EVENTS: ' object.deleted , multipart.completed,object.deleted' }));
    expect(webhookEventNames(cfg)).toEqual(['object.deleted', 'multipart.completed']);
    expect(problems({ WEBHOOK_EVENTS: 'object.created,object.Created' })).toEqual([
      'WEBHOOK_EVENTS must list only object.created, object.deleted, multipart.completed (unknown: "object.Created")',
    ]);
    expect(problems({ WEBHOOK_EVENTS: 'object.created,,object.deleted' })[0]).toMatch(/^WEBHOOK_EVENTS .*unknown: ""/);
  });

  it('bounds the tunables', () => {
    expect(
      loadConfig(env({ WEBHOOK_MAX_ATTEMPTS: '1', WEBHOOK_TIMEOUT_MS: '100', WEBHOOK_POLL_MS: '100' })),
    ).toMatchObject({
      WEBHOOK_MAX_ATTEMPTS: 1,
      WEBHOOK_TIMEOUT_MS: 100,
      WEBHOOK_POLL_MS: 100,
    });
    for (const [key, value] of [
      ['WEBHOOK_MAX_ATTEMPTS', '0'],
      ['WEBHOOK_MAX_ATTEMPTS', '101'],
      ['WEBHOOK_TIMEOUT_MS', '99'],
      ['WEBHOOK_POLL_MS', '3600001'],
      ['WEBHOOK_POLL_MS', '1e3'],
    ] as const) {
      expect(problems({ [key]: value })[0], `${key}=${value}`).toMatch(new RegExp(`^${key} is invalid`));
    }
  });
});
