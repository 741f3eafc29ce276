import type { EnvironmentVariables } from './env.schema.js';

/**
 * The settings of one concern, built from the validated environment. A feature injects
 * them with `@Inject(xConfig.KEY)` and types them with the file's `XConfig`.
 */
export type ConfigNamespace<T> = ((env: EnvironmentVariables) => T) & { readonly KEY: string };

export function configNamespace<T>(
  name: string,
  build: (env: EnvironmentVariables) => T,
): ConfigNamespace<T> {
  return Object.assign(build, { KEY: `CONFIGURATION(${name})` });
}
