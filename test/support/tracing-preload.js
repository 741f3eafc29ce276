// Test-only preload (node --import): the service's own tracing setup (dist/tracing), with
// finished spans kept by the SDK's in-memory exporter and each one also appended as a JSON
// line to TRACING_TEST_SPANS_FILE, where the test process reads them.
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';

const file = process.env.TRACING_TEST_SPANS_FILE;
if (!file) throw new Error('TRACING_TEST_SPANS_FILE is not set');

class JsonLinesExporter extends InMemorySpanExporter {
  export(spans, done) {
    super.export(spans, () => {});
    const lines = spans.map((span) =>
      JSON.stringify({
        name: span.name,
        kind: span.kind,
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        attributes: span.attributes,
        scope: span.instrumentationScope.name,
      }),
    );
    appendFileSync(file, lines.map((line) => `${line}\n`).join(''));
    done({ code: 0 });
  }
}

const { startTracing } = await import(
  pathToFileURL(`${import.meta.dirname}/../../dist/tracing/start-tracing.js`).href
);
startTracing({ spanProcessors: [new SimpleSpanProcessor({ exporter: new JsonLinesExporter() })] });
