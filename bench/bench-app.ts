import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ADMIN_PASSWORD } from './load.js';

export interface BenchApp {
  /** `http://127.0.0.1:PORT/v1` */
  base: string;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The app in this process as main.ts builds it, on a random port, logging errors only, with
 * per-user limits high enough for a load (they are still checked on every request); images
 * in a fresh temporary directory, removed on close.
 */
export async function startBenchApp(perUserLimit: number): Promise<BenchApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'petstore-bench-'));
  // Configuration is read when the modules load: set it first, then import the app.
  Object.assign(process.env, {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    RATE_LIMIT_USER_PER_MINUTE: String(perUserLimit),
    RATE_LIMIT_USER_PER_HOUR: String(perUserLimit),
    LOG_LEVEL: 'error',
  });
  const { AppModule } = await import('../src/app.module.js');
  const { configureApp } = await import('../src/app.setup.js');
  const app = configureApp(
    await NestFactory.create<NestExpressApplication>(AppModule, {
      bodyParser: false,
      logger: ['error'],
    }),
  );
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}/v1`,
    dataDir,
    close: async () => {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The admin's bearer header, and a POST of JSON that fails loudly on anything but 2xx. */
export async function adminClient(base: string) {
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  const auth = { Authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
  const post = async (path: string, body: object): Promise<{ id: number }> => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    return (await response.json()) as { id: number };
  };
  return { auth, post };
}
