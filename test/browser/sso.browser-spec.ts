import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeInBrowser } from '../support/browser.js';
import { consoleInBrowser } from '../support/console-browser.js';
import { freePort } from '../support/free-port.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

describeInBrowser('Single sign-on in the console (Chromium)', () => {
  // The provider lists the callback of the app's port, chosen before either starts.
  let port = 0;
  let provider: TestOidcProvider | undefined;
  const env: Record<string, string> = { OIDC_DISPLAY_NAME: 'Test ID' };
  beforeAll(async () => {
    port = await freePort();
    provider = await startOidcProvider(`http://127.0.0.1:${port}/v1/auth/sso/callback`);
    Object.assign(env, {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
    });
  });
  afterAll(async () => {
    await provider?.stop();
  });
  const c = consoleInBrowser(env, {
    port: () => port,
    otherOrigins: () => [provider!.issuer],
  });

  it('should offer “Sign in with <provider>” as a plain link to GET /v1/auth/sso', async () => {
    const page = await c.newPage();
    await page.goto('/console');
    const link = page.getByRole('link', { name: 'Sign in with Test ID' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('/v1/auth/sso');
  });

  it('should take up the session the callback left in the refresh cookie at /console/#sso', async () => {
    const login = await c.t.http
      .post('/v1/auth/login')
      .send({ username: c.t.plainUser.username, password: c.t.plainUser.password })
      .expect(200);
    const page = await c.newPage();
    await page.context().addCookies(
      ['/v1/auth/refresh', '/v1/auth/logout'].map((path) => ({
        name: 'petstore_refresh',
        value: login.body.refreshToken as string,
        domain: '127.0.0.1',
        path,
        httpOnly: true,
        secure: true,
        sameSite: 'Strict' as const,
      })),
    );
    await page.goto('/console/#sso');
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    expect(new URL(page.url()).hash).toBe('');
  });

  it('should sign in at the provider from “Sign in with <provider>” and land signed in', async () => {
    provider!.willSignIn({ email: c.t.plainUser.email, email_verified: true });
    const page = await c.newPage();
    await page.goto('/console/settings/sessions');
    await page.getByRole('link', { name: 'Sign in with Test ID' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    expect(await page.locator('.account span').textContent()).toBe(
      `Signed in as ${c.t.plainUser.username} (user)`,
    );
    expect(new URL(page.url()).hash).toBe('');
  });
});
