import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OtlpSink } from './otlp-sink.js';

/** The `--variant=KEY=VALUE` arguments: the settings a second app process runs with. */
export function variantOf(argv: string[]): Record<string, string> {
  return Object.fromEntries(
    argv
      .filter((arg) => arg.startsWith('--variant='))
      .map((arg) => arg.slice('--variant='.length).split('='))
      .map(([key, ...value]) => [key, value.join('=')]),
  );
}

/**
 * The tracing preload beside a build's main.js, as `npm start` loads it (none in older
 * builds); `main` relative to the working directory, or absolute (BENCH_COMPARE_APP).
 */
export function preloadOf(main: string): string[] {
  const preload = join(dirname(main), 'tracing', 'preload.js');
  return existsSync(preload) ? ['--import', pathToFileURL(resolve(preload)).href] : [];
}

/**
 * A variant that traces to an OTLP endpoint on loopback (`--variant=OTEL_EXPORTER_OTLP_ENDPOINT=
 * http://127.0.0.1:14318`) gets a sink there that accepts and drops every export, so the
 * variant pays for making, batching and sending its spans, and no collector is needed.
 */
export async function otlpSinkFor(variant: Record<string, string>): Promise<OtlpSink | undefined> {
  const endpoint =
    variant.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? variant.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined) return undefined;
  const url = new URL(endpoint);
  if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') return undefined;
  const sink = await OtlpSink.start(Number(url.port || 4318));
  console.log(`bench: OTLP sink on ${sink.url}`);
  return sink;
}

/** Says what the sink took, and stops it. */
export async function closeSink(sink: OtlpSink | undefined): Promise<void> {
  if (!sink) return;
  const bytes = sink.requests.reduce((sum, request) => sum + request.bytes, 0);
  console.log(`bench: the OTLP sink took ${sink.requests.length} exports, ${bytes} bytes`);
  await sink.stop();
}
