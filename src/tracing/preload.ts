import { loadDotEnv } from '../config/dot-env.js';
import { tracingRequested } from './tracing-env.js';

/**
 * Loaded before the app (`node --import ./dist/tracing/preload.js dist/main.js`), so that the
 * instrumented modules are hooked before anything imports them. Without an OTLP endpoint it
 * imports nothing else: no SDK, no loader hook, no cost.
 */
// The OTEL_ variables may be in .env, as every other setting may.
loadDotEnv();
if (tracingRequested(process.env)) {
  const { startTracing } = await import('./start-tracing.js');
  startTracing();
}
