// The webhook target kind (docs/notifications.md "webhook"): POSTs the AWS event message to an https URL (or http on
// loopback), with an optional bearer token, signed as the global webhook signs (X-Store-Signature, SPEC "Signed
// webhooks"). Any 2xx accepts; a 3xx is never followed. Failures name their class only, never the URL or a token.

import { createHash } from 'node:crypto';
import { WebhookClient } from '../../../clients/webhook-client.js';
import { packageVersion } from '../../../lib/package-version.js';
import { signatureHeader } from '../../events/webhook-signature.js';
import type { WebhookTargetSettings } from '../target-kinds.js';
import type { NotificationDelivery, NotificationTransport } from './transport.js';
import { TransportError } from './transport-error.js';

export type WebhookTransportConfig = WebhookTargetSettings;

/** True for localhost, 127.0.0.0/8 and ::1: a plain-http receiver there never crosses a network. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(host);
}

/** Why an endpoint is refused (not https, nor http to loopback), or undefined. */
export function webhookEndpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint must be an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'endpoint must not carry credentials (use bearerToken)';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'endpoint must be https, or http to a loopback host (localhost, 127.0.0.0/8, [::1])';
}

export function createWebhookTransport(config: WebhookTransportConfig): NotificationTransport {
  const problem = webhookEndpointProblem(config.endpoint);
  if (problem !== undefined) throw new Error('invalid configuration');
  const url = new URL(config.endpoint);
  const client = new WebhookClient({ maxSockets: 4 });
  const userAgent = `store-notifications/${packageVersion()}`;
  const timeoutMs = config.timeoutMs ?? 5000;
  return {
    async send(delivery: NotificationDelivery): Promise<void> {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': userAgent,
        'x-store-event': delivery.eventName,
        // The same for every attempt of a message (its sequencer makes it unique): receivers dedupe on it.
        'x-store-delivery': createHash('sha256').update(delivery.body).digest('hex').slice(0, 32),
      };
      if (config.secret !== undefined) {
        headers['x-store-signature'] = signatureHeader(config.secret, Math.floor(Date.now() / 1000), delivery.body);
      }
      if (config.bearerToken !== undefined) headers.authorization = `Bearer ${config.bearerToken}`;
      const result = await client.post({ url, headers, body: delivery.body, timeoutMs });
      if (result.kind === 'aborted') throw new Error('aborted');
      if (result.kind === 'error') {
        // `network error: ECONNREFUSED` and the like: nothing reached the receiver (the dispatcher pauses the target).
        const failureClass = result.reason.startsWith('network error') ? 'unreachable' : 'timeout';
        throw new TransportError(failureClass, result.reason, result.reason);
      }
      if (result.status >= 200 && result.status < 300) return;
      if (result.status >= 300 && result.status < 400) throw new Error(`redirect not followed (HTTP ${result.status})`);
      throw new Error(`HTTP ${result.status}`);
    },
    close(): Promise<void> {
      client.close();
      return Promise.resolve();
    },
  };
}
