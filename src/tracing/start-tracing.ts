import { register } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { isProbePath } from '../common/http/route-space.js';
import { Nest12Instrumentation } from './nest-instrumentation.js';
import { samplerFromEnv } from './sampler.js';
import { UrlRedactingSpanProcessor } from './span-urls.js';
import { markTracingStarted } from './trace-context.js';
import { serviceName } from './tracing-env.js';

/**
 * The modules the ESM loader hook wraps: those instrumented below (the CommonJS ones are
 * also hooked on require). Left to wrap every module, it parses each one the app imports
 * and start-up took minutes on a busy two-core machine.
 */
const HOOKED_MODULES = [
  'http',
  'node:http',
  'https',
  'node:https',
  /\/node_modules\/(@nestjs\/core|express|pg|pg-pool|ioredis)\//,
];

export interface TracingOptions {
  /**
   * Where finished spans go; by default batched to the OTLP endpoint (http/protobuf). URLs
   * are redacted first, whichever processors are given.
   */
  spanProcessors?: SpanProcessor[];
}

/**
 * Registers the tracer provider, the W3C trace-context propagator and the instrumentations.
 * Must run before the app's modules are imported: ESM imports are hooked through
 * import-in-the-middle's loader, registered here, and only modules loaded after it are
 * patched. The exporter reads the standard OTEL_EXPORTER_OTLP_* variables itself.
 */
export function startTracing(options: TracingOptions = {}): TracerProvider {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, {
    data: { include: HOOKED_MODULES },
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName(process.env) }),
    sampler: samplerFromEnv(process.env),
    spanProcessors: [
      new UrlRedactingSpanProcessor(),
      ...(options.spanProcessors ?? [
        new BatchSpanProcessor({ exporter: new OTLPTraceExporter() }),
      ]),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Probes arrive every few seconds and say nothing about a request's path through.
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => isProbePath(request.url?.split('?')[0] ?? ''),
      }),
      // The route (the server span's name) and the route handler; a span per middleware
      // (a dozen per request) would cost more than it tells.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new Nest12Instrumentation(),
      // Queries and commands outside a traced operation (the outbox and webhook workers'
      // polls, the rate limiter's housekeeping) would each be a trace of one span.
      // A pool checkout per query is a span that says little but what the pool metrics say.
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  // The spans still batched are sent when a signal starts the shutdown (which ends in
  // process.exit) and when the process runs out of work. Before the app handles signals
  // (during start-up), the signal then gets Node's default again: the process ends.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      const flushed = provider.forceFlush();
      if (process.listenerCount(signal) > 0) return;
      void flushed.finally(() => process.kill(process.pid, signal));
    });
  }
  process.once('beforeExit', () => void provider.shutdown());
  markTracingStarted();
  return provider;
}
