import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule } from '@nestjs/typeorm';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { UsersModule } from '../users/users.module.js';
import { AdminBootstrapService } from './admin-bootstrap.service.js';
import { ApiKey } from './api-key.entity.js';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysService } from './api-keys.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { CredentialsService } from './credentials.service.js';
import { AuthenticationGuard } from './guards/authentication.guard.js';
import { IdentifyGuard } from './guards/identify.guard.js';
import { RolesGuard } from './guards/roles.guard.js';
import { resolveJwtSecret } from './jwt-secret.js';
import { TokenService } from './token.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([ApiKey]),
    UsersModule,
    JwtModule.registerAsync({
      inject: [authConfig.KEY],
      useFactory: async (cfg: AuthConfig) => ({ secret: await resolveJwtSecret(cfg) }),
    }),
  ],
  controllers: [AuthController, ApiKeysController],
  providers: [
    AuthService,
    TokenService,
    ApiKeysService,
    CredentialsService,
    AdminBootstrapService,
    IdentifyGuard,
    AuthenticationGuard,
    RolesGuard,
  ],
  // The guards are registered globally, in order, by AppModule.
  exports: [CredentialsService, IdentifyGuard, AuthenticationGuard, RolesGuard],
})
export class AuthModule {}
