import { MiddlewareConsumer, Module, NestModule, ValidationPipe } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { CategoriesModule } from './categories/categories.module.js';
import { validationExceptionFactory } from './common/errors/validation-errors.js';
import { AllExceptionsFilter } from './common/filters/all-exceptions.filter.js';
import { ContentTypeInterceptor } from './common/http/content-type.interceptor.js';
import { JsonBodyMiddleware } from './common/http/json-body.middleware.js';
import { appConfig } from './config/app.config.js';
import { databaseConfig } from './config/database.config.js';
import { observabilityConfig } from './config/observability.config.js';
import { rateLimitConfig } from './config/rate-limit.config.js';
import { validateEnv } from './config/env.schema.js';
import { DatabaseModule } from './database/database.module.js';
import { HealthModule } from './health/health.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { LoggingModule } from './logging/logging.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { PetsModule } from './pets/pets.module.js';
import { RateLimitGuard } from './rate-limit/rate-limit.guard.js';
import { RateLimitModule } from './rate-limit/rate-limit.module.js';

@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: process.env.NODE_ENV === 'test',
      load: [appConfig, databaseConfig, rateLimitConfig, observabilityConfig],
      validate: validateEnv,
    }),
    LoggingModule,
    LifecycleModule,
    DatabaseModule,
    MetricsModule,
    HealthModule,
    CategoriesModule,
    PetsModule,
    RateLimitModule,
  ],
  providers: [
    // Global guards, in this order: identify the caller, spend its rate-limit budget,
    // then require authentication and check roles.
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    { provide: APP_INTERCEPTOR, useClass: ContentTypeInterceptor },
    {
      provide: APP_PIPE,
      useValue: new ValidationPipe({
        whitelist: true,
        forbidNonWhitelisted: true,
        transform: true,
        stopAtFirstError: true,
        exceptionFactory: validationExceptionFactory,
      }),
    },
  ],
})
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(JsonBodyMiddleware).forRoutes('*path');
  }
}
