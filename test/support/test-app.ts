import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module.js';
import { configureApp } from '../../src/app.setup.js';
import { bearer, loginAs } from './auth.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'admin password for tests';
export const USER_PASSWORD = 'plain user password';

export interface TestApp {
  app: NestExpressApplication;
  http: request.Agent;
  dataSource: DataSource;
  /** Request headers that authenticate as the bootstrap admin, and as a plain user. */
  admin: Record<string, string>;
  user: Record<string, string>;
  adminUser: { id: number; username: string; password: string };
  plainUser: { id: number; username: string; password: string; email: string };
  /** What tokens are signed and checked with in this app, for forging tokens in tests. */
  jwt: { secret: string; issuer: string; audience: string };
  close(): Promise<void>;
}

/**
 * Boots the real AppModule with the same configureApp() as main.ts, on a database of
 * its own, with the bootstrap admin and one plain user logged in. `env` overrides
 * configuration for this app only.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database: TestDatabase = await createTestDatabase();
  const overrides = {
    NODE_ENV: 'test',
    ADMIN_USERNAME,
    ADMIN_PASSWORD,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    JWT_ISSUER: 'petstore-test',
    JWT_AUDIENCE: 'petstore-test-api',
    ...database.env,
    ...env,
  };
  const saved = Object.fromEntries(Object.keys(overrides).map((k) => [k, process.env[k]]));
  Object.assign(process.env, overrides);
  let app: NestExpressApplication;
  try {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = configureApp(
      moduleRef.createNestApplication<NestExpressApplication>({
        bodyParser: false,
        logger: ['error'],
      }),
    );
    await app.init();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }

  const t: TestApp = {
    app,
    http: request(app.getHttpServer()),
    dataSource: app.get(DataSource),
    admin: {},
    user: {},
    adminUser: { id: 0, username: overrides.ADMIN_USERNAME, password: overrides.ADMIN_PASSWORD },
    plainUser: { id: 0, username: 'plain.user', password: USER_PASSWORD, email: '' },
    jwt: {
      secret: overrides.JWT_SECRET,
      issuer: overrides.JWT_ISSUER,
      audience: overrides.JWT_AUDIENCE,
    },
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
  const adminLogin = await t.http
    .post('/v1/auth/login')
    .send({ username: t.adminUser.username, password: t.adminUser.password });
  t.adminUser.id = adminLogin.body.user.id;
  t.admin = bearer(adminLogin.body.token);

  const created = await t.http
    .post('/v1/users')
    .set(t.admin)
    .send({ username: 'plain.user', email: 'plain.user@example.com', password: USER_PASSWORD });
  t.plainUser = { ...t.plainUser, id: created.body.id, email: created.body.email };
  t.user = bearer(await loginAs(t, t.plainUser.username, t.plainUser.password));
  return t;
}
