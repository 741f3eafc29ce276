import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

/** Single sign-on with an OpenID Connect provider; `issuer` undefined when there is none. */
export const oidcConfig = registerAs('oidc', (env: EnvironmentVariables = loadEnv()) => ({
  issuer: env.OIDC_ISSUER,
  clientId: env.OIDC_CLIENT_ID ?? '',
  clientSecret: env.OIDC_CLIENT_SECRET ?? '',
  displayName: env.OIDC_DISPLAY_NAME,
  /** Lower case; empty: every domain. */
  allowedDomains: env.OIDC_ALLOWED_DOMAINS?.toLowerCase().split(',') ?? [],
}));

export type OidcConfig = ConfigType<typeof oidcConfig>;
