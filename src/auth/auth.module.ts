import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from './api-key.entity.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import type { KeyObject } from 'node:crypto';
import { RateLimitModule } from '../rate-limit/rate-limit.module.js';
import { UsersModule } from '../users/users.module.js';
import { ApiKeyExpiryWarnings } from './api-key-expiry-warnings.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { AccessStatesService } from './access-states.service.js';
import { ApiKeyAuthGuard } from './guards/api-key-auth.guard.js';
import { AuthenticationGuard } from './guards/authentication.guard.js';
import { ResolveCredentialsGuard } from './guards/resolve-credentials.guard.js';
import { JwtAuthGuard } from './guards/jwt-auth.guard.js';
import { RolesGuard } from './guards/roles.guard.js';
import { ScopesGuard } from './guards/scopes.guard.js';
import { JWT_KEY, JwtKeyModule } from './jwt-key.module.js';
import { ApiKeyStrategy } from './strategies/api-key.strategy.js';
import { JwtStrategy } from './strategies/jwt.strategy.js';
import { RouteMetadataModule } from '../common/metadata/route-metadata.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { TokenService } from './token.service.js';
import { Session, SpentRefreshToken } from './sessions/session.entity.js';
import { MfaChallenge, RecoveryCode, TotpFactor } from './mfa/mfa.entity.js';
import { MfaController, UserMfaController } from './mfa/mfa.controller.js';
import { MfaRepository } from './mfa/mfa.repository.js';
import { MFA_SECRET_BOX, MfaService } from './mfa/mfa.service.js';
import { SecretBox } from './mfa/secret-box.js';
import { Passkey, PasskeyChallenge } from './passkeys/passkey.entity.js';
import { PasskeysController } from './passkeys/passkeys.controller.js';
import { PasskeysRepository } from './passkeys/passkeys.repository.js';
import { PasskeysService } from './passkeys/passkeys.service.js';
import { Clock } from '../common/clock.js';
import { SessionsController, UserSessionsController } from './sessions/sessions.controller.js';
import { SessionsRepository } from './sessions/sessions.repository.js';
import { SessionsService } from './sessions/sessions.service.js';
import { SsoStateCookie } from './sso/sso-state.js';
import { SsoController } from './sso/sso.controller.js';
import { SsoService } from './sso/sso.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([
      ApiKey,
      Session,
      SpentRefreshToken,
      TotpFactor,
      RecoveryCode,
      MfaChallenge,
      Passkey,
      PasskeyChallenge,
    ]),
    UsersModule,
    IdempotencyModule,
    RateLimitModule,
    RouteMetadataModule,
    // Stateless: what a strategy returns is put on request.principal, never in a session.
    PassportModule.register({ session: false, property: 'principal' }),
    JwtKeyModule,
    JwtModule.registerAsync({
      imports: [JwtKeyModule],
      inject: [JWT_KEY],
      useFactory: (secret: KeyObject) => ({ secret }),
    }),
  ],
  controllers: [
    AuthController,
    ApiKeysController,
    SessionsController,
    UserSessionsController,
    MfaController,
    UserMfaController,
    PasskeysController,
    SsoController,
  ],
  providers: [
    AuthService,
    TokenService,
    ApiKeysService,
    ApiKeysRepository,
    ApiKeyExpiryWarnings,
    SessionsService,
    SessionsRepository,
    AccessStatesService,
    MfaService,
    MfaRepository,
    PasskeysService,
    PasskeysRepository,
    Clock,
    {
      provide: MFA_SECRET_BOX,
      inject: [authConfig.KEY, JWT_KEY],
      useFactory: (cfg: AuthConfig, jwtKey: KeyObject) =>
        SecretBox.fromSettings(cfg.mfaEncryptionKey, cfg.mfaEncryptionKeyPrevious, jwtKey.export()),
    },
    SsoService,
    {
      provide: SsoStateCookie,
      inject: [JWT_KEY],
      useFactory: (key: KeyObject) => new SsoStateCookie(key),
    },
    JwtStrategy,
    ApiKeyStrategy,
    JwtAuthGuard,
    ApiKeyAuthGuard,
    ResolveCredentialsGuard,
    AuthenticationGuard,
    RolesGuard,
    ScopesGuard,
  ],
  // The guards are registered globally, in order, by AppModule.
  exports: [ResolveCredentialsGuard, AuthenticationGuard, RolesGuard, ScopesGuard],
})
export class AuthModule {}
