import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createLogger } from '../logging/logger.js';
import { markTracingStarted, traceFields } from './trace-context.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe('trace fields of log lines', () => {
  const provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
  });
  const tracer = provider.getTracer('test');

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(async () => {
    context.disable();
    await provider.shutdown();
  });

  it('should have no fields outside a span, and the active span’s ids inside one', () => {
    expect(traceFields()).toEqual({});
    tracer.startActiveSpan('work', (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(traceFields()).toEqual({ trace_id: traceId, span_id: spanId });
      span.end();
    });
  });

  it('should add the fields to the lines written in a span once tracing has started', async () => {
    const before = capture();
    const untraced = await createLogger({ level: 'info', pretty: false, ...before });
    markTracingStarted();
    const after = capture();
    const traced = await createLogger({ level: 'info', pretty: false, ...after });

    const ids = tracer.startActiveSpan('request', (span) => {
      untraced.info('in a span, before tracing started');
      traced.info('in a span');
      span.end();
      return span.spanContext();
    });
    traced.info('outside any span');

    expect(before.lines[0]).not.toHaveProperty('trace_id');
    expect(after.lines).toEqual([
      expect.objectContaining({ msg: 'in a span', trace_id: ids.traceId, span_id: ids.spanId }),
      expect.not.objectContaining({ trace_id: expect.anything() }),
    ]);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
