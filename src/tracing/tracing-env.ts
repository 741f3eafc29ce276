/**
 * Whether the process is to trace: an OTLP endpoint is set (for traces or for every signal)
 * and the SDK is not disabled, as the OpenTelemetry specification reads these variables.
 * The preload asks before the configuration is validated, with `.env` merged in.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true';
}

/** `service.name` of every span: OTEL_SERVICE_NAME, else `petstore`. */
export function serviceName(env: NodeJS.ProcessEnv): string {
  return env.OTEL_SERVICE_NAME?.trim() || 'petstore';
}
