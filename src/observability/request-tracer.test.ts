// Request spans: named `${surface} ${route_class}`, bounded attributes only, ERROR only for 5xx, parented on an
// incoming trace when a propagator is installed; nothing at all when disabled, and non-recording with no SDK.

import {
  context,
  propagation,
  ROOT_CONTEXT,
  trace,
  type Context,
  type ContextManager,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { requestLabels } from './metric-labels.js';
import { RequestTracer } from './request-tracer.js';

function sdk(): { exporter: InMemorySpanExporter; tracer: RequestTracer } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: new RequestTracer({ enabled: true, tracer: provider.getTracer('test') }) };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';

/** A minimal W3C traceparent reader, standing in for the SDK's propagator. */
const traceparentReader: TextMapPropagator = {
  inject: () => undefined,
  fields: () => ['traceparent'],
  extract: (ctx, carrier, getter) => {
    const value = getter.get(carrier, 'traceparent');
    const match = typeof value === 'string' ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-0([01])$/.exec(value) : null;
    if (!match) return ctx;
    return trace.setSpanContext(ctx, {
      traceId: match[1] as string,
      spanId: match[2] as string,
      traceFlags: Number(match[3]),
      isRemote: true,
    });
  },
};

/** A synchronous context manager (the SDK's AsyncLocalStorage one, minus the async part). */
class StackContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;
  active(): Context {
    return this.current;
  }
  // eslint-disable-next-line max-params -- OpenTelemetry's ContextManager.with(context, fn, thisArg, ...args)
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = ctx;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}

afterEach(() => {
  context.disable();
  propagation.disable();
  trace.disable();
});

describe('RequestTracer', () => {
  it('names the span by surface and route class, with only the bounded attributes', () => {
    const { exporter, tracer } = sdk();
    const span = tracer.begin({ 'x-secret-header': 'do-not-record', host: '127.0.0.1:9000' });
    span?.end(requestLabels({ surface: 's3', method: 'GET', routeClass: 'GetObject', status: 200 }), 200);
    const [finished] = exporter.getFinishedSpans();
    expect(finished?.name).toBe('s3 GetObject');
    expect(finished?.attributes).toEqual({
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'store.surface': 's3',
      'store.route_class': 'GetObject',
    });
    expect(finished?.status.code).toBe(0); // UNSET
    expect(finished?.kind).toBe(1); // SERVER
  });

  it('marks 5xx as an error, not 4xx, and leaves the status code out for an aborted request', () => {
    const { exporter, tracer } = sdk();
    tracer
      .begin({})
      ?.end(requestLabels({ surface: 'admin', method: 'GET', routeClass: '/api/admin/keys/:id', status: 404 }), 404);
    tracer.begin({})?.end(requestLabels({ surface: 's3', method: 'PUT', routeClass: 'PutObject', status: 500 }), 500);
    tracer
      .begin({})
      ?.end(requestLabels({ surface: 's3', method: 'PUT', routeClass: 'PutObject', status: undefined }), undefined);
    const [notFound, failed, aborted] = exporter.getFinishedSpans();
    expect(notFound?.status.code).toBe(0);
    expect(failed?.status.code).toBe(2); // ERROR
    expect(aborted?.attributes['http.response.status_code']).toBeUndefined();
    expect(aborted?.attributes['store.route_class']).toBe('PutObject');
  });

  it('continues an incoming trace when a propagator is installed', () => {
    propagation.setGlobalPropagator(traceparentReader);
    const { exporter, tracer } = sdk();
    tracer
      .begin({ traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` })
      ?.end(requestLabels({ surface: 's3', method: 'GET', routeClass: 'ListBuckets', status: 200 }), 200);
    const [span] = exporter.getFinishedSpans();
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
  });

  it('runs the handler inside the span context, so an SDK context manager can parent child spans on it', () => {
    context.setGlobalContextManager(new StackContextManager());
    const { tracer } = sdk();
    const span = tracer.begin({});
    const inside = RequestTracer.within(span, () => trace.getSpan(context.active()));
    expect(inside).toBeDefined();
    expect(inside).toBe(trace.getSpan(span?.context as Context));
    expect(trace.getSpan(context.active())).toBeUndefined();
    expect(RequestTracer.within(undefined, () => 42)).toBe(42);
  });

  it('does nothing when disabled, even with an SDK registered', () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const tracer = new RequestTracer({ enabled: false });
    expect(tracer.isEnabled).toBe(false);
    expect(tracer.begin({})).toBeUndefined();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('uses the global provider when enabled, including one registered after the tracer was built', () => {
    const tracer = new RequestTracer({ enabled: true });
    const before = tracer.begin({});
    expect(trace.getSpan(before?.context ?? context.active())?.isRecording()).toBe(false); // no SDK: a no-op span
    before?.end(requestLabels({ surface: 's3', method: 'GET', routeClass: 'GetObject', status: 200 }), 200);

    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    tracer
      .begin({})
      ?.end(requestLabels({ surface: 'metrics', method: 'GET', routeClass: '/metrics', status: 200 }), 200);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['metrics /metrics']);
  });
});
