import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Context } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { samplerFromEnv } from './sampler.js';

/** A caller's traceparent as the propagator reads it: a remote parent, sampled or not. */
function callerContext(sampled: boolean): Context {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  });
}

const decide = (env: NodeJS.ProcessEnv, parent: Context, traceId: string) =>
  samplerFromEnv(env).shouldSample(parent, traceId, 'GET /v1/pets', SpanKind.SERVER, {}, [])
    .decision;

describe(samplerFromEnv.name, () => {
  it("should follow its own parent spans, sampling new and callers' traces, by default and for an unknown name", () => {
    expect(samplerFromEnv({}).toString()).toBe(
      'ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOnSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}',
    );
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'sometimes' }).toString()).toBe(
      samplerFromEnv({}).toString(),
    );
  });

  it("should never let a caller's sampled flag force sampling", () => {
    const traceIdOf = (parent: Context) => trace.getSpanContext(parent)!.traceId;
    const sampledCaller = callerContext(true);
    for (const env of [
      { OTEL_TRACES_SAMPLER: 'parentbased_always_off' },
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
    ]) {
      expect(decide(env, sampledCaller, traceIdOf(sampledCaller))).toBe(
        SamplingDecision.NOT_RECORD,
      );
    }
    // The ratio decides by the trace id, whatever the caller's flag says.
    const ratio = {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
    };
    const decisions = Array.from({ length: 200 }, () => {
      const [sampled, unsampled] = [callerContext(true), callerContext(false)];
      const traceId = traceIdOf(sampled);
      return [
        decide(ratio, sampled, traceId),
        decide(
          ratio,
          trace.setSpanContext(ROOT_CONTEXT, { ...trace.getSpanContext(unsampled)!, traceId }),
          traceId,
        ),
      ];
    });
    expect(decisions.every(([a, b]) => a === b)).toBe(true);
    expect(decisions.some(([a]) => a === SamplingDecision.NOT_RECORD)).toBe(true);
    // The service's own spans still follow their local parent.
    const local = trace.setSpanContext(ROOT_CONTEXT, {
      ...trace.getSpanContext(sampledCaller)!,
      isRemote: false,
    });
    expect(decide({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, local, traceIdOf(local))).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
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
