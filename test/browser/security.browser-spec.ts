import { expect, it } from '@jest/globals';
import { generate } from 'otplib';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import {
  accessibilityViolations,
  describeInBrowser,
  fitsWidth,
  heading,
  screenshot,
} from '../support/browser.js';
import { consoleInBrowser } from '../support/console-browser.js';

const PHONE = { width: 390, height: 844 };
const STEP_SECONDS = 30;

/**
 * For a sign-in after the set-up (confirmed with the current step's code): a code of
 * `secret` one time step ahead of now: within the service's window (±1 step), and
 * later than any step a code was accepted for so far (each is good once).
 */
const nextCode = (secret: string) =>
  generate({ secret, epoch: Math.floor(Date.now() / 1000) + STEP_SECONDS });

/** The page as it is now fits the window and passes axe's WCAG 2.1 AA rules. */
async function expectAccessible(page: Page, what: string): Promise<void> {
  expect({ what, fits: await fitsWidth(page) }).toEqual({ what, fits: true });
  expect({ what, violations: await accessibilityViolations(page) }).toEqual({
    what,
    violations: [],
  });
}

/** Starts the set-up on the Security page: the key as the page writes it, spaces removed. */
async function startSetUp(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await page.getByRole('img', { name: /QR code/ }).waitFor();
  return (await page.locator('code.secret').textContent())!.replace(/\s/g, '');
}

/** Confirms the set-up with a code of `secret`: the 10 recovery codes the page shows. */
async function confirmSetUp(page: Page, secret: string): Promise<string[]> {
  await page.getByLabel('Enter the 6-digit code the app shows').fill(await generate({ secret }));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
  return page.locator('.recovery-codes li').allTextContents();
}

async function signInWithPassword(page: Page, username: string, password: string) {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await heading(page, 'Sign in').waitFor();
}

const signedIn = (page: Page) =>
  page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();

describeInBrowser('The Security page and the two-step sign-in (Chromium)', () => {
  const c = consoleInBrowser();

  it('should set up an authenticator app, give the recovery codes once, and ask for a code at sign-in', async () => {
    const { username, password } = c.t.plainUser;
    const page = await c.signedInPage('user', '/console/settings/security');
    await heading(page, 'Security').waitFor();
    await expect(page.locator('.badge').textContent()).resolves.toBe('Off');

    const secret = await startSetUp(page);
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await expectAccessible(page, 'set-up');
    await screenshot(page, 'security');

    const codes = await confirmSetUp(page, secret);
    expect(codes).toHaveLength(10);
    expect(await page.getByText('you will not see them again').count()).toBe(1);
    await expectAccessible(page, 'recovery codes');
    await screenshot(page, 'recovery-codes');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('status').getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('petstore-recovery-codes.txt');
    const file = await readFile(await download.path(), 'utf8');
    expect(file.trim().split('\n').slice(-10)).toEqual(codes);
    await page.getByRole('button', { name: 'I have saved the codes' }).click();
    await page.locator('.badge', { hasText: 'On' }).waitFor();
    expect(await page.locator('.recovery-codes').count()).toBe(0);

    // Signing in again asks for a code: a wrong one says how many tries are left.
    await signOut(page);
    await signInWithPassword(page, username, password);
    await heading(page, 'Two-step sign-in').waitFor();
    const codeField = page.getByLabel('Code from your authenticator app');
    expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await codeField.getAttribute('inputmode')).toBe('numeric');
    await expectAccessible(page, 'step');
    await screenshot(page, 'mfa-step');
    await codeField.fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('That code is not right. 4 more tries before you start over.').waitFor();
    await codeField.fill(await nextCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await signedIn(page);

    // A recovery code instead of the app's.
    await signOut(page);
    await signInWithPassword(page, username, password);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(codes[0]);
    await page.getByRole('button', { name: 'Verify' }).click();
    await signedIn(page);
  });

  it('should fit a phone: the set-up, the recovery codes and the step', async () => {
    const person = { username: 'phone.person', password: 'a phone person’s password' };
    await c.t.http
      .post('/v1/users')
      .set(c.t.admin)
      .send({ ...person, email: 'phone.person@example.com' })
      .expect(201);
    const page = await c.newPage(PHONE);
    await page.goto('/console/settings/security');
    await signInWithPassword(page, person.username, person.password);
    await heading(page, 'Security').waitFor();
    const secret = await startSetUp(page);
    await expectAccessible(page, 'phone set-up');
    await screenshot(page, 'phone-security');
    await confirmSetUp(page, secret);
    await expectAccessible(page, 'phone recovery codes');
    await screenshot(page, 'phone-recovery-codes');
    await page.getByRole('button', { name: 'I have saved the codes' }).click();
    await signOut(page);
    await signInWithPassword(page, person.username, person.password);
    await heading(page, 'Two-step sign-in').waitFor();
    await expectAccessible(page, 'phone step');
    await screenshot(page, 'phone-mfa-step');
  });
});

describeInBrowser('An admin held to enrolment in the console (Chromium)', () => {
  const c = consoleInBrowser({ MFA_REQUIRED_ROLES: 'admin' }, { app: { signIn: false } });

  it('should land on the Security page only, enrol there, then sign in again with a code', async () => {
    const { username, password } = c.t.adminUser;
    const page = await c.newPage();
    await page.goto('/console/pets');
    await signInWithPassword(page, username, password);
    await heading(page, 'Security').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/settings/security');
    await page.getByText('Your account must sign in with a second factor.').waitFor();
    expect(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents(),
    ).toEqual(['Security']);

    const secret = await startSetUp(page);
    await confirmSetUp(page, secret);
    await page.getByRole('button', { name: 'I have saved the codes: sign in again' }).click();
    await page
      .getByText('Your authenticator app is set up. Sign in again, with a code from the app.')
      .waitFor();
    await signInWithPassword(page, username, password);
    await page.getByLabel('Code from your authenticator app').fill(await nextCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await signedIn(page);
    await page.getByRole('link', { name: 'Users' }).waitFor();
  });
});
