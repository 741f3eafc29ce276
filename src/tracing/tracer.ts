import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

// The app's own spans (image work, webhook requests); a no-op tracer when tracing is off.
const tracer = trace.getTracer('petstore');

/**
 * Runs `work` in a span of its own, active for what it calls: ended when the work settles,
 * with the error recorded when it throws. Without tracing this is a call through a no-op span.
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

export { SpanKind, SpanStatusCode };
