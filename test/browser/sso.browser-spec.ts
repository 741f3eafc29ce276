import { expect, it } from '@jest/globals';
import { describeInBrowser } from '../support/browser.js';
import { consoleInBrowser } from '../support/console-browser.js';

describeInBrowser('Single sign-on in the console (Chromium)', () => {
  // The provider is never reached here: the settings are read without it.
  const c = consoleInBrowser({
    OIDC_ISSUER: 'http://127.0.0.1:9',
    OIDC_CLIENT_ID: 'petstore',
    OIDC_CLIENT_SECRET: 'a client secret for tests only',
    OIDC_DISPLAY_NAME: 'Test ID',
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
});
