import { describe, expect, it } from '@jest/globals';
import { samplerFromEnv } from './sampler.js';

describe(samplerFromEnv.name, () => {
  it('should follow the parent, sampling new traces, by default and for an unknown name', () => {
    expect(samplerFromEnv({}).toString()).toBe(
      'ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}',
    );
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'sometimes' }).toString()).toBe(
      samplerFromEnv({}).toString(),
    );
  });

  it('should take the ratio of the ratio samplers from OTEL_TRACES_SAMPLER_ARG', () => {
    const env = {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    };
    expect(samplerFromEnv(env).toString()).toContain('root=TraceIdRatioBased{0.25}');
    expect(
      samplerFromEnv({
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      }).toString(),
    ).toBe('TraceIdRatioBased{0.1}');
  });

  it('should sample everything for a ratio that is missing or out of range', () => {
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio' }).toString()).toBe(
      'TraceIdRatioBased{1}',
    );
    expect(
      samplerFromEnv({
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '2',
      }).toString(),
    ).toBe('TraceIdRatioBased{1}');
  });

  it('should name the fixed samplers', () => {
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'always_on' }).toString()).toBe('AlwaysOnSampler');
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'ALWAYS_OFF' }).toString()).toBe(
      'AlwaysOffSampler',
    );
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }).toString()).toContain(
      'root=AlwaysOffSampler',
    );
  });
});
