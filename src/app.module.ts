import { MiddlewareConsumer, Module, NestModule, ValidationPipe } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { CategoriesModule } from './categories/categories.module.js';
import { validationExceptionFactory } from './common/errors/validation-errors.js';
import { AllExceptionsFilter } from './common/filters/all-exceptions.filter.js';
import { ContentTypeInterceptor } from './common/http/content-type.interceptor.js';
import { JsonBodyMiddleware } from './common/http/json-body.middleware.js';
import { appConfig } from './config/app.config.js';
import { databaseConfig } from './config/database.config.js';
import { validateEnv } from './config/env.schema.js';
import { mediaConfig } from './config/media.config.js';
import { DatabaseModule } from './database/database.module.js';
import { MediaModule } from './media/media.module.js';
import { PetsModule } from './pets/pets.module.js';

@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: process.env.NODE_ENV === 'test',
      load: [appConfig, databaseConfig, mediaConfig],
      validate: validateEnv,
    }),
    DatabaseModule,
    CategoriesModule,
    PetsModule,
    MediaModule,
  ],
  providers: [
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
