import { isSpanContextValid, trace } from '@opentelemetry/api';

let started = false;

/** Called once the SDK is registered (by the preload, before the app's modules run). */
export function markTracingStarted(): void {
  started = true;
}

/** Whether this process traces: the logger adds trace fields only then. */
export function tracingStarted(): boolean {
  return started;
}

/** The active span's ids, for a log line written while it is active; none outside a span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const context = trace.getActiveSpan()?.spanContext();
  if (context === undefined || !isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}
