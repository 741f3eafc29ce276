import { registerAs, type ConfigType } from '@nestjs/config';
import type { ApiKeyMode } from '../common/types/api-key-mode.js';
import type { Role } from '../common/types/principal.js';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const authConfig = registerAs('auth', (env: EnvironmentVariables = loadEnv()) => {
  const mfaRoles = env.MFA_REQUIRED_ROLES ?? (env.NODE_ENV === 'production' ? 'admin' : '');
  const modes = env.API_KEY_MODES ?? (env.NODE_ENV === 'production' ? 'live' : 'live,test');
  return {
    jwtSecret: env.JWT_SECRET,
    jwtIssuer: env.JWT_ISSUER,
    jwtAudience: env.JWT_AUDIENCE,
    /** Where a generated development secret is kept (`jwt-secret`, mode 0600). */
    dataDir: env.DATA_DIR,
    production: env.NODE_ENV === 'production',
    apiKeyModes: [...new Set(modes.split(','))] as ApiKeyMode[],
    apiKeysPerUser: env.API_KEYS_PER_USER,
    accessStateCacheTtlMs: env.ACCESS_STATE_CACHE_TTL_MS,
    refreshTokenTtlSeconds: env.REFRESH_TOKEN_TTL_SECONDS,
    adminUsername: env.ADMIN_USERNAME,
    adminPassword: env.ADMIN_PASSWORD,
    adminEmail: env.ADMIN_EMAIL ?? `${env.ADMIN_USERNAME.toLowerCase()}@petstore.invalid`,
    registration: env.REGISTRATION ?? (env.NODE_ENV === 'production' ? 'closed' : 'open'),
    unverifiedAccountTtlHours: env.UNVERIFIED_ACCOUNT_TTL_HOURS,
    mfaRequiredRoles: [...new Set(mfaRoles.split(',').filter(Boolean))] as Role[],
    mfaEncryptionKey: env.MFA_ENCRYPTION_KEY,
    mfaEncryptionKeyPrevious: env.MFA_ENCRYPTION_KEY_PREVIOUS,
  };
});

export type AuthConfig = ConfigType<typeof authConfig>;
