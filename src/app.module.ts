import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { AuthenticationGuard } from './auth/guards/authentication.guard.js';
import { ResolveCredentialsGuard } from './auth/guards/resolve-credentials.guard.js';
import { RolesGuard } from './auth/guards/roles.guard.js';
import { ScopesGuard } from './auth/guards/scopes.guard.js';
import { AdoptionsModule } from './adoptions/adoptions.module.js';
import { CategoriesModule } from './categories/categories.module.js';
import { ConsoleHostModule } from './console-host/console-host.module.js';
import { AllExceptionsFilter } from './common/filters/all-exceptions.filter.js';
import { ContentTypeGuard } from './common/http/content-type.guard.js';
import { JsonBodyMiddleware } from './common/http/json-body.middleware.js';
import { RouteMetadataModule } from './common/metadata/route-metadata.js';
import { bodyAndQueryValidationPipe } from './common/pipes/body-and-query-validation.pipe.js';
import { SafeInputPipe } from './common/pipes/safe-input.pipe.js';
import { UnknownRouteModule } from './common/http/unknown-route.controller.js';
import { AppConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { EventsModule } from './events/events.module.js';
import { HealthModule } from './health/health.module.js';
import { ShutdownModule } from './shutdown/shutdown.module.js';
import { LoggingModule } from './logging/logging.module.js';
import { MailModule } from './mail/mail.module.js';
import { MediaModule } from './media/media.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { PetsModule } from './pets/pets.module.js';
import { PetImportsModule } from './pet-imports/pet-imports.module.js';
import { RateLimitGuard } from './rate-limit/rate-limit.guard.js';
import { RateLimitModule, RateLimitThrottlerModule } from './rate-limit/rate-limit.module.js';
import { StatsModule } from './stats/stats.module.js';
import { AccountsModule } from './users/accounts/accounts.module.js';
import { UsersModule } from './users/users.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

@Module({
  imports: [
    AppConfigModule,
    RouteMetadataModule,
    LoggingModule,
    ShutdownModule,
    DatabaseModule,
    MetricsModule,
    EventsModule,
    HealthModule,
    AuthModule,
    UsersModule,
    AccountsModule,
    CategoriesModule,
    PetsModule,
    AdoptionsModule,
    MediaModule,
    PetImportsModule,
    MailModule,
    WebhooksModule,
    AuditModule,
    StatsModule,
    RateLimitModule,
    RateLimitThrottlerModule,
    OpenApiModule,
    ConsoleHostModule,
    // Last: its catch-all route must come after every real one.
    UnknownRouteModule,
  ],
  providers: [
    // Global guards run in this order; keep it.
    // 1. Resolve the credential into request.principal or request.authFailure; never refuses.
    { provide: APP_GUARD, useExisting: ResolveCredentialsGuard },
    // 2. Spend the caller's rate-limit budget (@nestjs/throttler, per key / per user),
    //    counting missing or invalid credentials by client address before step 3 refuses them (429).
    { provide: APP_GUARD, useClass: RateLimitGuard },
    // 3. Refuse what is not @Public() without a valid credential (401), API keys on @BearerOnly().
    { provide: APP_GUARD, useExisting: AuthenticationGuard },
    // 4. @Roles(...) (403).
    { provide: APP_GUARD, useExisting: RolesGuard },
    // 5. An API key outside the route's @RequiredScope (403), from the key's row already read.
    { provide: APP_GUARD, useExisting: ScopesGuard },
    // 6. A POST or PUT body of another type than its handler consumes (415).
    { provide: APP_GUARD, useClass: ContentTypeGuard },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    // Global pipes run in this order: NUL, prototype keys and depth are refused before
    // class-transformer copies the value.
    { provide: APP_PIPE, useClass: SafeInputPipe },
    { provide: APP_PIPE, useValue: bodyAndQueryValidationPipe() },
  ],
})
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(JsonBodyMiddleware).forRoutes('*path');
  }
}
