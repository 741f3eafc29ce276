import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { createUser, type CreatedUser } from '../support/auth.js';
import {
  accessibilityViolations,
  describeInBrowser,
  launchBrowser,
  openPage,
  screenshot,
  type WatchedPage,
} from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/*
 * Passkeys in the console with Chromium's virtual authenticator (the DevTools protocol's
 * WebAuthn domain). WebAuthn takes no IP address as relying party: the page is served at
 * http://localhost:<port>, which is also PUBLIC_BASE_URL.
 */
describeInBrowser('Passkeys in the console (Chromium)', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  let opened: WatchedPage[] = [];

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    t = await createTestApp({ PUBLIC_BASE_URL: origin });
    await t.app.listen(port, '127.0.0.1');
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(async () => {
    const problems = opened.flatMap((watched) => watched.problems);
    await Promise.all(opened.map((watched) => watched.context.close()));
    opened = [];
    // Chromium logs the 401 of a refused sign-in as a failed resource, which openPage allows.
    expect(problems).toEqual([]);
  });

  /** A watched page with a virtual platform authenticator that verifies its user. */
  async function pageWithAuthenticator(): Promise<{ page: Page; cdp: CDPSession; id: string }> {
    const watched = await openPage(browser, origin);
    opened.push(watched);
    const cdp = await watched.context.newCDPSession(watched.page);
    await cdp.send('WebAuthn.enable');
    const id = await addAuthenticator(cdp);
    return { page: watched.page, cdp, id };
  }

  async function addAuthenticator(cdp: CDPSession): Promise<string> {
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return authenticatorId;
  }

  async function signInWithPassword(page: Page, user: CreatedUser): Promise<void> {
    await page.goto('/console');
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
  }

  /** Registers a passkey named `name` from the console's Security page. */
  async function registerFromConsole(page: Page, name: string): Promise<void> {
    await page.getByRole('link', { name: 'Security' }).click();
    await page.getByLabel('Name of the new passkey (optional)').fill(name);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Passkey “${name}” added.` })
      .waitFor();
  }

  async function signOut(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
  }

  const passkeysOf = (userId: number) =>
    t.dataSource.query<{ name: string; counter: string }[]>(
      `SELECT name, counter FROM passkeys WHERE user_id = $1 ORDER BY id`,
      [userId],
    );

  it('should register a passkey from the console, then sign in with it alone', async () => {
    const user = await createUser(t);
    const { page } = await pageWithAuthenticator();
    await signInWithPassword(page, user);

    await registerFromConsole(page, 'Laptop');
    await page.getByRole('button', { name: 'Remove Laptop' }).waitFor();
    expect(await passkeysOf(user.id)).toEqual([{ name: 'Laptop', counter: expect.anything() }]);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'passkeys');

    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    expect(await page.getByText(`Signed in as ${user.username}`).count()).toBe(1);
  });

  it('should take the passkey as the second factor after the password', async () => {
    const user = await createUser(t);
    const { page } = await pageWithAuthenticator();
    await signInWithPassword(page, user);
    await registerFromConsole(page, 'Phone');
    await signOut(page);

    // The login's second step: an account with a passkey only is offered no code.
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Two-step sign-in' }).waitFor();
    expect(await page.getByLabel('Code from your authenticator app').count()).toBe(0);
    await page.getByRole('button', { name: 'Use a passkey' }).click();

    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    expect(await page.getByText(`Signed in as ${user.username}`).count()).toBe(1);
    const [passkey] = await passkeysOf(user.id);
    expect(Number(passkey.counter)).toBeGreaterThan(0);
  });

  it('should refuse a cloned credential used after the original', async () => {
    const user = await createUser(t);
    const { page, cdp, id } = await pageWithAuthenticator();
    await signInWithPassword(page, user);
    await registerFromConsole(page, 'Key');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId: id });
    expect(credentials).toHaveLength(1);
    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    await signOut(page);

    // The copy, on another authenticator, with the counter it had before the original's use.
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: id });
    const cloneId = await addAuthenticator(cdp);
    await cdp.send('WebAuthn.addCredential', {
      authenticatorId: cloneId,
      credential: { ...credentials[0], signCount: 0 },
    });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();

    await page.getByRole('alert').filter({ hasText: 'The passkey did not sign in' }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out', exact: true }).count()).toBe(0);
    const audit = await t.dataSource.query(
      `SELECT outcome FROM audit_events WHERE action = 'auth.mfa_failed' AND target_id = $1`,
      [user.id],
    );
    expect(audit).toEqual([{ outcome: 'failure' }]);
  });
});
