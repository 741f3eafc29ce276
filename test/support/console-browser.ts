import { afterAll, afterEach, beforeAll, expect } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openPage, type WatchedPage } from './browser.js';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app.js';

type Viewport = { width: number; height: number };

export interface ConsoleInBrowser {
  /** The app under test; set once the suite's set-up has run. */
  readonly t: TestApp;
  readonly origin: string;
  /** A fresh, watched page (its own cookies), closed and checked after the test. */
  newPage: (viewport?: Viewport) => Promise<Page>;
  /** Fills the sign-in form and waits until signed in. */
  signIn: (page: Page, username: string, password: string) => Promise<void>;
  /** A new page at `route`, signed in as the test app's admin or plain user. */
  signedInPage: (as?: 'admin' | 'user', route?: string, viewport?: Viewport) => Promise<Page>;
}

export interface ConsoleOptions {
  app?: TestAppOptions;
  /** The loopback port to listen on, read at set-up (default: any free one). */
  port?: () => number;
  /** Origins pages may reach besides the app's, read at set-up: a test's sign-in provider. */
  otherOrigins?: () => string[];
}

/**
 * The set-up of a console browser suite: the app listening on a loopback port with `env`
 * (read at set-up, so an earlier `beforeAll` may fill it in), Chromium, and after every test
 * a check that no page loaded anything from elsewhere, broke the CSP or threw. Call it inside
 * the suite's `describe`.
 */
export function consoleInBrowser(
  env: Record<string, string> = {},
  { app: appOptions, port, otherOrigins }: ConsoleOptions = {},
): ConsoleInBrowser {
  let t: TestApp | undefined;
  let origin = '';
  let browser: Browser | undefined;
  let opened: WatchedPage[] = [];

  beforeAll(async () => {
    t = await createTestApp(env, appOptions);
    await t.app.listen(port?.() ?? 0, '127.0.0.1');
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
    // Migrating a fresh database and starting Chromium can outlast a test's time on a busy machine.
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(async () => {
    const problems = opened.flatMap((watched) => watched.problems);
    await Promise.all(opened.map((watched) => watched.context.close()));
    opened = [];
    expect(problems).toEqual([]);
  });

  const newPage = async (viewport?: Viewport) => {
    const watched = await openPage(browser!, origin, viewport, otherOrigins?.());
    opened.push(watched);
    return watched.page;
  };
  const signIn = async (page: Page, username: string, password: string) => {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
  };
  return {
    get t() {
      return t!;
    },
    get origin() {
      return origin;
    },
    newPage,
    signIn,
    signedInPage: async (as = 'admin', route = '/console', viewport) => {
      const page = await newPage(viewport);
      await page.goto(route);
      const account = as === 'admin' ? t!.adminUser : t!.plainUser;
      await signIn(page, account.username, account.password);
      return page;
    },
  };
}
