// Optional request tracing (OTEL_TRACING_ENABLED): one server span per request, named `${surface} ${route_class}`,
// with bounded attributes only. Only @opentelemetry/api is used: with no SDK registered every call is a no-op.

import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { RequestLabels } from './metric-labels.js';

/** The span of one request in flight. */
export interface RequestSpan {
  /** Run the request's handling inside this context so an SDK's context manager can parent child spans on it. */
  readonly context: Context;
  /** Names the span after the request's surface and route class, sets its attributes and ends it. */
  end(labels: RequestLabels, status: number | undefined): void;
}

export interface RequestTracerOptions {
  enabled: boolean;
  /** Default: the global tracer provider's 'store' tracer (a no-op until an SDK registers a provider). */
  tracer?: Tracer;
}

export class RequestTracer {
  private readonly tracer: Tracer | undefined;

  constructor(opts: RequestTracerOptions) {
    // A proxy tracer: an SDK registered after boot (by an embedder) still receives the spans.
    this.tracer = opts.enabled ? (opts.tracer ?? trace.getTracer('store')) : undefined;
  }

  get isEnabled(): boolean {
    return this.tracer !== undefined;
  }

  /**
   * Starts a request's span, or returns undefined when tracing is off. An incoming `traceparent` continues the
   * caller's trace when the SDK installed a propagator; headers never become attributes.
   */
  begin(headers: IncomingHttpHeaders): RequestSpan | undefined {
    if (!this.tracer) return undefined;
    const parent = propagation.extract(ROOT_CONTEXT, headers);
    const span = this.tracer.startSpan('request', { kind: SpanKind.SERVER }, parent);
    return { context: trace.setSpan(parent, span), end: (labels, status) => endSpan(span, labels, status) };
  }

  /** Runs `fn` inside the span's context (directly when there is no span). */
  static within<T>(span: RequestSpan | undefined, fn: () => T): T {
    return span ? context.with(span.context, fn) : fn();
  }
}

function endSpan(span: Span, labels: RequestLabels, status: number | undefined): void {
  span.updateName(`${labels.surface} ${labels.route_class}`);
  span.setAttributes({
    'http.request.method': labels.method,
    'store.surface': labels.surface,
    'store.route_class': labels.route_class,
  });
  if (status !== undefined) span.setAttribute('http.response.status_code', status);
  // OpenTelemetry HTTP semantic conventions: on a server span only 5xx is an error (4xx is the client's).
  if (status !== undefined && status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
