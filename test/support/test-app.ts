import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module.js';
import { configureApp } from '../../src/app.setup.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export interface TestApp {
  app: NestExpressApplication;
  http: request.Agent;
  dataSource: DataSource;
  /** Request headers that authenticate as the bootstrap admin, and as a plain user. */
  admin: Record<string, string>;
  user: Record<string, string>;
  close(): Promise<void>;
}

/**
 * Boots the real AppModule with the same configureApp() as main.ts, on a database of
 * its own. `env` overrides configuration for this app only.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database: TestDatabase = await createTestDatabase();
  const overrides = { NODE_ENV: 'test', ...database.env, ...env };
  const saved = Object.fromEntries(Object.keys(overrides).map((k) => [k, process.env[k]]));
  Object.assign(process.env, overrides);
  try {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = configureApp(
      moduleRef.createNestApplication<NestExpressApplication>({
        bodyParser: false,
        logger: ['error'],
      }),
    );
    await app.init();
    return {
      app,
      http: request(app.getHttpServer()),
      dataSource: app.get(DataSource),
      admin: {},
      user: {},
      close: async () => {
        await app.close();
        await database.drop();
      },
    };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
