import { registerAs } from '@nestjs/config';
import { readEnv } from './env.schema.js';

export const appConfig = registerAs('app', () => {
  const env = readEnv();
  return {
    nodeEnv: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    dataDir: env.DATA_DIR,
    publicBaseUrl: env.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
  };
});
