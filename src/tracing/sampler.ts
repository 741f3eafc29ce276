import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace';

/**
 * The sampler the standard variables name (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG),
 * which this SDK version no longer reads itself; `parentbased_always_on` by default, as
 * the specification says. Unknown values fall back to the defaults here: the preload runs
 * before the configuration is validated, and the validation (env.schema.ts) then stops the
 * start with a message naming the variable.
 *
 * A parent-based sampler follows the service's own parent spans, but decides a caller's
 * trace (a remote parent, from its traceparent) with its root sampler: a caller continues
 * its trace, and cannot make the service record and export spans it would not sample.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() ?? '';
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1;
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return parentBased(new AlwaysOffSampler());
    case 'parentbased_traceidratio':
      return parentBased(new TraceIdRatioBasedSampler(ratio));
    default:
      return parentBased(new AlwaysOnSampler());
  }
}

const parentBased = (root: Sampler) =>
  new ParentBasedSampler({ root, remoteParentSampled: root, remoteParentNotSampled: root });
