import { randomBytes } from 'node:crypto';
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
  /** The app's database; pass it to another createTestApp() to run a second instance on it. */
  database: TestDatabase;
  /** Request headers that authenticate as the bootstrap admin, and as a plain user. */
  admin: Record<string, string>;
  user: Record<string, string>;
  close(): Promise<void>;
}

// Tests other than the rate-limit ones must never be throttled.
const GENEROUS_RATE_LIMITS = Object.fromEntries(
  ['API_KEY', 'USER', 'ANONYMOUS'].flatMap((tier) =>
    ['HOUR', 'MINUTE'].map((window) => [`RATE_LIMIT_${tier}_PER_${window}`, '1000000']),
  ),
);

/**
 * Boots the real AppModule with the same configureApp() as main.ts, on a database of
 * its own (or on `shared`, another app's, which that app's close() drops). `env`
 * overrides configuration for this app only.
 */
export async function createTestApp(
  env: Record<string, string> = {},
  shared?: TestDatabase,
): Promise<TestApp> {
  const database = shared ?? (await createTestDatabase());
  const dropDatabase = () => (shared ? Promise.resolve() : database.drop());
  const overrides = {
    NODE_ENV: 'test',
    // Request lines and expected 503 warnings would bury the test report.
    LOG_LEVEL: 'error',
    ...GENEROUS_RATE_LIMITS,
    // Apps share a Redis server (when REDIS_URL is set) but not their counters.
    REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
    ...database.env,
    ...env,
  };
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
      database,
      admin: {},
      user: {},
      close: async () => {
        await app.close();
        await dropDatabase();
      },
    };
  } catch (error) {
    await dropDatabase();
    throw error;
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
