import { configNamespace } from './config-namespace.js';

export const observabilityConfig = configNamespace('observability', (env) => ({
  logLevel: env.LOG_LEVEL,
  prettyLogs: wantsPrettyLogs(env.NODE_ENV),
  metricsEnabled: env.METRICS_ENABLED,
  metricsToken: env.METRICS_TOKEN,
}));

export type ObservabilityConfig = ReturnType<typeof observabilityConfig>;

/** Colourful lines for a person at a terminal; JSON for everything that collects logs. */
export function wantsPrettyLogs(nodeEnv: string): boolean {
  return nodeEnv === 'development' && process.stdout.isTTY === true;
}
