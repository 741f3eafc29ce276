import { describe, expect, it } from '@jest/globals';
import { serviceName, tracingRequested } from './tracing-env.js';

describe(tracingRequested.name, () => {
  it('should trace when an OTLP endpoint, general or for traces, is set', () => {
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(
      tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }),
    ).toBe(true);
  });

  it('should not trace without an endpoint, or with an empty one', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'petstore' })).toBe(false);
  });

  it('should not trace when OTEL_SDK_DISABLED is true, whatever its case', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: ' TRUE ' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});

describe(serviceName.name, () => {
  it('should be OTEL_SERVICE_NAME, else petstore', () => {
    expect(serviceName({ OTEL_SERVICE_NAME: 'petstore-eu' })).toBe('petstore-eu');
    expect(serviceName({ OTEL_SERVICE_NAME: ' ' })).toBe('petstore');
    expect(serviceName({})).toBe('petstore');
  });
});
