import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module.js';
import { JWT_SECRET_FILE } from '../../src/auth/jwt-secret.js';
import { configureApp } from '../../src/app.setup.js';
import {
  observabilityConfig,
  type ObservabilityConfig,
} from '../../src/config/observability.config.js';
import { createLogger } from '../../src/logging/logger.js';
import { ROOT_LOGGER } from '../../src/logging/logging.module.js';
import { bearer } from './headers.js';
import { conformanceOf, conformingAgent } from './conforming-agent.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { generousRateLimits } from './rate-limits.js';
import { testLogs } from './test-logs.js';

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'admin password for tests';
export const USER_PASSWORD = 'plain user password';
const PLAIN_USERNAME = 'plain.user';

export interface TestApp {
  app: NestExpressApplication;
  http: request.Agent;
  dataSource: DataSource;
  /** The app's database; pass it to another createTestApp() to run a second instance on it. */
  database: TestDatabase;
  /** Request headers that authenticate as the bootstrap admin, and as a plain user. */
  admin: Record<string, string>;
  user: Record<string, string>;
  adminUser: { id: number; username: string; password: string };
  plainUser: { id: number; username: string; password: string; email: string };
  /** What tokens are signed and checked with in this app, for forging tokens in tests. */
  jwt: { secret: string; issuer: string; audience: string };
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Another app's database (that app's close() drops it), for a second instance. */
  database?: TestDatabase;
  /** Log in the admin and a plain user (default); off for tests that count every request. */
  signIn?: boolean;
  /** Modules beside AppModule, such as a test's own consumer of domain events. */
  imports?: NonNullable<ModuleMetadata['imports']>;
}

/**
 * Boots the real AppModule with the same configureApp() as main.ts, on a database of
 * its own, with the bootstrap admin and one plain user logged in. `env` overrides
 * configuration for this app only (undefined unsets a variable). Apps on one database share its JWT secret, as the
 * instances of one deployment do.
 */
export async function createTestApp(
  env: Record<string, string | undefined> = {},
  { database: shared, signIn = true, imports = [] }: TestAppOptions = {},
): Promise<TestApp> {
  const database = shared ?? (await createTestDatabase());
  const dropDatabase = () => (shared ? Promise.resolve() : database.drop());
  const overrides = {
    NODE_ENV: 'test',
    // Request lines and expected 503 warnings would bury what matters; the lines go to
    // testLogs, where a test takes those it causes on purpose.
    LOG_LEVEL: 'error',
    ...generousRateLimits(),
    // Apps share a Redis server (when REDIS_URL is set) but not their counters.
    REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
    ADMIN_USERNAME,
    ADMIN_PASSWORD,
    JWT_SECRET: database.jwtSecret,
    JWT_ISSUER: 'petstore-test',
    JWT_AUDIENCE: 'petstore-test-api',
    ...database.env,
    ...env,
  };
  const saved = Object.fromEntries(Object.keys(overrides).map((k) => [k, process.env[k]]));
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  let app: NestExpressApplication;
  try {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule, ...imports] })
      .overrideProvider(ROOT_LOGGER)
      .useFactory({
        inject: [observabilityConfig.KEY],
        factory: (config: ObservabilityConfig) =>
          createLogger({ level: config.logLevel, pretty: false, destination: testLogs }),
      })
      .compile();
    app = configureApp(
      moduleRef.createNestApplication<NestExpressApplication>({
        bodyParser: false,
        logger: ['error'],
      }),
    );
    await app.init();
  } catch (error) {
    await dropDatabase();
    throw error;
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }

  const t: TestApp = {
    app,
    // Every response is checked against the OpenAPI document the app serves.
    http: conformingAgent(request(app.getHttpServer()), conformanceOf(app)),
    dataSource: app.get(DataSource),
    database,
    admin: {},
    user: {},
    adminUser: { id: 0, username: overrides.ADMIN_USERNAME, password: overrides.ADMIN_PASSWORD },
    plainUser: { id: 0, username: PLAIN_USERNAME, password: USER_PASSWORD, email: '' },
    jwt: {
      // Without JWT_SECRET, the one the app keeps in its data directory (development).
      secret:
        overrides.JWT_SECRET ??
        readFileSync(join(env.DATA_DIR ?? database.env.DATA_DIR, JWT_SECRET_FILE), 'utf8').trim(),
      issuer: overrides.JWT_ISSUER,
      audience: overrides.JWT_AUDIENCE,
    },
    close: async () => {
      await app.close();
      await dropDatabase();
    },
  };
  if (signIn) await signInAdminAndUser(t);
  return t;
}

// The plain user may already exist: another instance on the same database made it.
async function signInAdminAndUser(t: TestApp): Promise<void> {
  const login = (username: string, password: string) =>
    t.http.post('/v1/auth/login').send({ username, password });
  const adminLogin = await login(t.adminUser.username, t.adminUser.password).expect(200);
  t.adminUser.id = adminLogin.body.user.id;
  t.admin = bearer(adminLogin.body.token);

  // Created before its login rather than after a refused one, whose audit entry, written
  // without being awaited, could land in a test's freshly emptied log.
  const created = await t.http
    .post('/v1/users')
    .set(t.admin)
    .send({ username: PLAIN_USERNAME, email: 'plain.user@example.com', password: USER_PASSWORD });
  if (created.status !== 201 && created.status !== 409) {
    throw new Error(`create ${PLAIN_USERNAME}: ${created.status} ${created.text}`);
  }
  const plain = await login(PLAIN_USERNAME, USER_PASSWORD).expect(200);
  t.plainUser = { ...t.plainUser, id: plain.body.user.id, email: plain.body.user.email };
  t.user = bearer(plain.body.token);
}
