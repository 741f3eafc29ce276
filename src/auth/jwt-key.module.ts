import { Module } from '@nestjs/common';
import type { KeyObject } from 'node:crypto';
import { CursorSigner } from '../common/dto/page-cursor.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { resolveJwtSecret } from './jwt-secret.js';

/** The HMAC key tokens are signed and verified with, resolved once per process. */
export const JWT_KEY = Symbol('JWT_KEY');

/**
 * Shared by JwtModule (signing) and JwtStrategy (verifying), so both use one KeyObject; and
 * the one CursorSigner of the paged lists (pets, audit), whose key derives from the same
 * secret, so a cursor outlives a restart and passes between instances as a token does.
 */
@Module({
  providers: [
    {
      provide: JWT_KEY,
      inject: [authConfig.KEY],
      useFactory: (cfg: AuthConfig): Promise<KeyObject> => resolveJwtSecret(cfg),
    },
    {
      provide: CursorSigner,
      inject: [JWT_KEY],
      useFactory: (key: KeyObject) => new CursorSigner(key),
    },
  ],
  exports: [JWT_KEY, CursorSigner],
})
export class JwtKeyModule {}
