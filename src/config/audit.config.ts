import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const auditConfig = registerAs('audit', (env: EnvironmentVariables = loadEnv()) => ({
  /** An entry older than this is removed by the purge. */
  retentionMs: env.AUDIT_RETENTION_DAYS * 24 * 60 * 60 * 1000,
}));

export type AuditConfig = ConfigType<typeof auditConfig>;
