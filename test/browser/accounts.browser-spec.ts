import { afterAll, afterEach, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { createUser } from '../support/auth.js';
import {
  checkPages,
  describeInBrowser,
  heading,
  launchBrowser,
  openPage,
  type WatchedPage,
} from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { TestSmtpServer } from '../support/smtp-server.js';
import { createTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

describeInBrowser('Accounts and sessions in the console (Chromium, real SMTP)', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let origin: string;
  let browser: Browser;
  let opened: WatchedPage[] = [];

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    const port = await freePort();
    // Loopback over plain HTTP: Chromium treats 127.0.0.1 as a secure context, so it keeps
    // the Secure refresh cookie; the mailed links and the Origin check use this origin.
    origin = `http://127.0.0.1:${port}`;
    t = await createTestApp({
      SMTP_URL: smtp.url,
      PUBLIC_BASE_URL: origin,
      REGISTRATION: 'open',
    });
    await t.app.listen(port, '127.0.0.1');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.stop();
  });
  // Every test: nothing loaded from elsewhere, no CSP violation, no script error.
  afterEach(async () => {
    const problems = opened.flatMap((watched) => watched.problems);
    await Promise.all(opened.map((watched) => watched.context.close()));
    opened = [];
    expect(problems).toEqual([]);
  });

  async function newPage(viewport?: { width: number; height: number }): Promise<Page> {
    const watched = await openPage(browser, origin, viewport);
    opened.push(watched);
    return watched.page;
  }

  async function signIn(page: Page, username: string, password: string): Promise<void> {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
  }

  /** The console link of the one mail `to` will have got (the outbox sends after commit). */
  async function mailedLink(to: string, page: string, count = 1): Promise<string> {
    await waitFor(() => Promise.resolve(smtp.mailsTo(to).length >= count), 10_000);
    const mail = smtp.mailsTo(to)[count - 1];
    const text = mail.parsed.text ?? '';
    const link = new RegExp(`${origin}/console/${page}\\?token=[A-Za-z0-9_-]+`).exec(text);
    expect(link).not.toBeNull();
    return link![0];
  }

  /** The account's `userStatus`, as an admin reads it (2: awaiting verification, 0: active). */
  async function userStatusOf(username: string): Promise<number> {
    const res = await t.http.get('/v1/users?limit=100').set(t.admin).expect(200);
    return (res.body.users as { username: string; userStatus: number }[]).find(
      (user) => user.username === username,
    )!.userStatus;
  }

  /** Every value the page's script could read from storage, as one string, times as `<time>`. */
  const storageOf = (page: Page) =>
    page.evaluate(() =>
      JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie]).replace(
        /"\d{13}"/g,
        '"<time>"',
      ),
    );
  // Until when the session lasts, so that a visit signed out asks the service nothing.
  const SIGNED_IN_STORAGE = '[{"petstore.console.signedInUntil":"<time>"},{},""]';

  it('should register, verify by the mailed link, sign in, keep the session over a reload, list and end sessions, and sign out', async () => {
    const page = await newPage();
    await page.goto('/console');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading(page, 'Create an account').waitFor();
    // The API's field messages, under their fields.
    await page.getByLabel('Username').fill('x');
    await page.getByLabel('Email').fill('not an address');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#field-username-error').waitFor();
    await page.locator('#field-email-error').waitFor();

    await page.getByLabel('Username').fill('new.customer');
    await page.getByLabel('Email').fill('new.customer@example.com');
    await page.getByLabel('Password', { exact: true }).fill('customer password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading(page, 'Check your mail').waitFor();
    await page.getByRole('button', { name: 'Send the mail again' }).click();
    await page.getByText('We sent the link again.').waitFor();

    // Not verified yet: the API says so.
    await page.goto('/console');
    await page.getByLabel('Username').fill('new.customer');
    await page.getByLabel('Password').fill('customer password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();

    // The second mail, sent by "Send the mail again", holds a link that works too. Opening
    // it verifies nothing (a mail scanner that runs the page would): the click does.
    const verifications: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/v1/auth/verify-email')) verifications.push(request.method());
    });
    await page.goto(await mailedLink('new.customer@example.com', 'verify-email', 2));
    await heading(page, 'Verify email').waitFor();
    await page.waitForLoadState('networkidle');
    expect(verifications).toEqual([]);
    expect(await userStatusOf('new.customer')).toBe(2);
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText('Your email address is confirmed.').waitFor();
    expect(verifications).toEqual(['POST']);
    expect(await userStatusOf('new.customer')).toBe(0);
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await signIn(page, 'new.customer', 'customer password');
    await heading(page, 'Pets').waitFor();
    // A customer reads pets and does not get the buttons that change them.
    expect(await page.getByRole('link', { name: 'Add a pet' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);

    // The refresh cookie is HttpOnly, and the access token is in no storage.
    expect(await storageOf(page)).toBe(SIGNED_IN_STORAGE);
    const cookies = await page.context().cookies();
    expect(
      cookies.map(({ name, path, httpOnly, secure, sameSite }) => ({
        name,
        path,
        httpOnly,
        secure,
        sameSite,
      })),
    ).toEqual(
      ['/v1/auth/refresh', '/v1/auth/logout'].map((path) => ({
        name: 'petstore_refresh',
        path,
        httpOnly: true,
        secure: true,
        sameSite: 'Strict',
      })),
    );

    // A reload has no token: it gets one through the cookie, silently.
    await page.reload();
    await heading(page, 'Pets').waitFor();
    expect(await page.getByText('Signed in as new.customer').count()).toBe(1);
    expect(await storageOf(page)).toBe(SIGNED_IN_STORAGE);

    // Two more sessions of the same account, from elsewhere.
    for (const agent of ['other-device/1.0', 'third-device/2.0']) {
      await t.http
        .post('/v1/auth/login')
        .set('User-Agent', agent)
        .send({ username: 'new.customer', password: 'customer password' })
        .expect(200);
    }
    await page.getByRole('link', { name: 'Sessions' }).click();
    await heading(page, 'Sessions').waitFor();
    const rows = page.getByRole('row');
    await rows.filter({ hasText: 'other-device/1.0' }).waitFor();
    expect(await rows.filter({ hasText: 'This device' }).count()).toBe(1);
    expect(await rows.filter({ hasText: 'This device' }).textContent()).toContain('HeadlessChrome');

    await rows
      .filter({ hasText: 'other-device/1.0' })
      .getByRole('button', { name: /^Revoke/ })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Session ended.').waitFor();
    expect(await rows.filter({ hasText: 'other-device/1.0' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign them out' }).click();
    await page.getByText('Every other session has ended.').waitFor();
    const listed = await t.http
      .post('/v1/auth/login')
      .send({ username: 'new.customer', password: 'customer password' })
      .expect(200);
    const sessions = await t.http
      .get('/v1/auth/sessions')
      .set('Authorization', `Bearer ${listed.body.token}`)
      .expect(200);
    // This device and the login just made.
    expect(sessions.body.sessions).toHaveLength(2);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading(page, 'Sign in').waitFor();
    expect(await page.context().cookies()).toEqual([]);
    expect(await storageOf(page)).toBe('[{},{},""]');
    await page.reload();
    await heading(page, 'Sign in').waitFor();
  });

  it('should send a reset link for a forgotten password, and sign in with the new one', async () => {
    const member = await createUser(t);
    const page = await newPage();
    await page.goto('/console');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await heading(page, 'Forgot password').waitFor();
    await page.getByLabel('Email').fill(member.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await heading(page, 'Check your mail').waitFor();

    // An unknown address gets the same notice.
    await page.goto('/console/forgot-password');
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await heading(page, 'Check your mail').waitFor();

    await page.goto(await mailedLink(member.email, 'reset-password'));
    await heading(page, 'Set your password').waitFor();
    await page.getByLabel('New password', { exact: true }).fill('a new password');
    await page.getByLabel('New password again').fill('another password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await page.getByLabel('New password again').fill('a new password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await heading(page, 'Password set').waitFor();
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await signIn(page, member.username, 'a new password');
    await heading(page, 'Pets').waitFor();
  });

  it('should let an admin invite a user, who sets a password from the mail and signs in', async () => {
    const admin = await newPage();
    await admin.goto('/console/users');
    await signIn(admin, t.adminUser.username, t.adminUser.password);
    await heading(admin, 'Users').waitFor();
    const invite = admin.getByRole('form', { name: 'Invite a user' });
    await invite.getByLabel('Username').fill('invited.clerk');
    await invite.getByLabel('Email').fill('invited.clerk@example.com');
    await invite.getByLabel('First name (optional)').fill('Ina');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await admin.getByText('invited.clerk invited', { exact: false }).waitFor();
    await admin
      .getByRole('row', { name: /invited\.clerk/ })
      .getByText('Pending verification')
      .waitFor();

    const invited = await newPage();
    await invited.goto(await mailedLink('invited.clerk@example.com', 'reset-password'));
    await heading(invited, 'Set your password').waitFor();
    await invited.getByLabel('New password', { exact: true }).fill('invited password');
    await invited.getByLabel('New password again').fill('invited password');
    await invited.getByRole('button', { name: 'Set password' }).click();
    await heading(invited, 'Password set').waitFor();
    await invited.getByRole('link', { name: 'Sign in', exact: true }).click();
    await signIn(invited, 'invited.clerk', 'invited password');
    await heading(invited, 'Pets').waitFor();
  });

  it('should show a used or unknown link’s refusal', async () => {
    const page = await newPage();
    await page.goto('/console/verify-email?token=unknown');
    await heading(page, 'Verify email').waitFor();
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByRole('alert').waitFor();
  });

  it('should fit a phone and pass axe on the account pages', async () => {
    const page = await newPage({ width: 375, height: 800 });
    await checkPages(page, [
      { route: '/console/register', title: 'Create an account', name: 'register-phone' },
      { route: '/console/forgot-password', title: 'Forgot password', name: 'forgot-phone' },
      { route: '/console/verify-email?token=x', title: 'Verify email', name: 'verify-phone' },
      {
        route: '/console/reset-password?token=x',
        title: 'Set your password',
        name: 'reset-phone',
      },
    ]);
    await page.goto('/console/settings/sessions');
    await signIn(page, t.plainUser.username, t.plainUser.password);
    await checkPages(page, [
      { route: '/console/settings/sessions', title: 'Sessions', name: 'sessions-phone' },
    ]);
  });
});
