// The webhook keys of the environment schema (SPEC "Signed webhooks") and their boot refusals: a URL that is neither
// https nor a loopback host, a missing or weak secret, an unknown event name. Messages never echo a value (the
// URL may carry credentials).

import { Type, type Static } from '@sinclair/typebox';
import { isObjectEventType, OBJECT_EVENT_TYPES, type ObjectEventType } from '../lib/object-event-names.js';
import { weakSecretReason } from './secrets.js';

/** An event name WEBHOOK_EVENTS may list: any object event type. */
export type WebhookEventName = ObjectEventType;

export const WEBHOOK_KEYS = {
  WEBHOOK_URL: Type.Optional(
    Type.String({ description: 'Webhook receiver: https, or http to a loopback host; unset turns webhooks off' }),
  ),
  WEBHOOK_SECRET: Type.Optional(
    Type.String({ description: 'Signs webhook requests; at least 32 characters, high entropy' }),
  ),
  WEBHOOK_EVENTS: Type.Optional(
    Type.String({ description: 'Comma-separated event types to deliver (default all three)' }),
  ),
  WEBHOOK_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 8,
    description: 'Attempts before a webhook row is dead-lettered (1 to 100)',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 120_000,
    default: 5000,
    description: 'Per-request webhook timeout (100 ms to 2 min)',
  }),
  WEBHOOK_POLL_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 15_000,
    description: 'Webhook runner poll interval (100 ms to 1 h)',
  }),
};

const WebhookConfig = Type.Object(WEBHOOK_KEYS);
type WebhookConfig = Static<typeof WebhookConfig>;

/** True for localhost, 127.0.0.0/8 and ::1: a plain-http receiver there never crosses a network. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(host);
}

/** Why the URL is refused, or undefined. */
function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'WEBHOOK_URL must be an absolute URL (https://..., or http:// to a loopback host)';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'WEBHOOK_URL must be https, or http to a loopback host (localhost, 127.0.0.0/8, [::1])';
}

/** The listed event names in first-seen order, or the names that are not event types. */
function parseEvents(value: string): { names: WebhookEventName[]; unknown: string[] } {
  const names: WebhookEventName[] = [];
  const unknown: string[] = [];
  for (const raw of value.split(',')) {
    const name = raw.trim();
    if (isObjectEventType(name)) {
      if (!names.includes(name)) names.push(name);
    } else {
      unknown.push(name);
    }
  }
  return { names, unknown };
}

/** The boot refusals of the webhook keys. */
export function webhookProblems(cfg: WebhookConfig): string[] {
  const problems: string[] = [];
  if (cfg.WEBHOOK_URL !== undefined) {
    const problem = urlProblem(cfg.WEBHOOK_URL);
    if (problem) problems.push(problem);
    if (cfg.WEBHOOK_SECRET === undefined) problems.push('WEBHOOK_SECRET is required when WEBHOOK_URL is set');
  }
  if (cfg.WEBHOOK_SECRET !== undefined) {
    const reason = weakSecretReason(cfg.WEBHOOK_SECRET);
    if (reason) problems.push(`WEBHOOK_SECRET ${reason}`);
  }
  if (cfg.WEBHOOK_EVENTS !== undefined) {
    const { unknown } = parseEvents(cfg.WEBHOOK_EVENTS);
    // Event names are not secret: naming the unknown ones (capped) tells the operator what to fix.
    if (unknown.length > 0) {
      const shown = unknown
        .slice(0, 3)
        .map((n) => JSON.stringify(n.slice(0, 40)))
        .join(', ');
      problems.push(`WEBHOOK_EVENTS must list only ${OBJECT_EVENT_TYPES.join(', ')} (unknown: ${shown})`);
    }
  }
  return problems;
}

/** The event types to deliver by webhook: WEBHOOK_EVENTS, or all three when unset. Call after validation. */
export function webhookEventNames(cfg: Pick<WebhookConfig, 'WEBHOOK_EVENTS'>): WebhookEventName[] {
  return cfg.WEBHOOK_EVENTS === undefined ? [...OBJECT_EVENT_TYPES] : parseEvents(cfg.WEBHOOK_EVENTS).names;
}
