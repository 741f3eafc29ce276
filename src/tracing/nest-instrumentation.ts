import { InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { NestInstrumentation } from '@opentelemetry/instrumentation-nestjs-core';

// The instrumentation declares `@nestjs/core` below 12; the two files it patches
// (nest-factory.js, router/router-execution-context.js) and the methods it wraps are
// unchanged in 12, where the spans it makes were checked by test/e2e/operations/tracing.
const NEST_VERSIONS = ['>=12.0.0 <13'];

/** Nest's handler spans (`<Controller>.<handler>`) for NestJS 12. */
export class Nest12Instrumentation extends NestInstrumentation {
  override init(): InstrumentationNodeModuleDefinition {
    const module = new InstrumentationNodeModuleDefinition(
      NestInstrumentation.COMPONENT,
      NEST_VERSIONS,
    );
    module.files.push(
      this.getNestFactoryFileInstrumentation(NEST_VERSIONS),
      this.getRouterExecutionContextFileInstrumentation(NEST_VERSIONS),
    );
    return module;
  }
}
