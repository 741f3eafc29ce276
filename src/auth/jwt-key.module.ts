import { Module } from '@nestjs/common';
import type { KeyObject } from 'node:crypto';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { resolveJwtSecret } from './jwt-secret.js';

/** The HMAC key tokens are signed and verified with, resolved once per process. */
export const JWT_KEY = Symbol('JWT_KEY');

/** Shared by JwtModule (signing) and JwtStrategy (verifying), so both use one KeyObject. */
@Module({
  providers: [
    {
      provide: JWT_KEY,
      inject: [authConfig.KEY],
      useFactory: (cfg: AuthConfig): Promise<KeyObject> => resolveJwtSecret(cfg),
    },
  ],
  exports: [JWT_KEY],
})
export class JwtKeyModule {}
