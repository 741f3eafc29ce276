import { join } from 'node:path';
import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const mailConfig = registerAs('mail', (env: EnvironmentVariables = loadEnv()) => ({
  /** Unset: each mail is written as an `.eml` file under `fileDir` (docs/mail.md, "Transports"). */
  smtpUrl: env.SMTP_URL,
  from: env.MAIL_FROM,
  fileDir: join(env.DATA_DIR, 'mail'),
  /** What links in mails start with; the console's pages are under it. */
  linkBaseUrl: env.PUBLIC_BASE_URL?.replace(/\/+$/, '') ?? `http://localhost:${env.PORT}`,
  /** Links in written mails are logged, except in production, where they are secrets. */
  logLinks: env.NODE_ENV !== 'production',
}));

export type MailConfig = ConfigType<typeof mailConfig>;
