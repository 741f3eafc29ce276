import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { describeInBrowser, launchBrowser, openPage } from '../support/browser.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describeInBrowser('Interactive API docs (/docs) in Chromium', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await createTestApp({}, { signIn: false });
    await t.app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('should render the operations list under its own policy, with no CSP violation and nothing from elsewhere', async () => {
    const { page, context, problems } = await openPage(browser, origin);
    // Reported by the page itself as well as on the console, so that none can slip by.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });

    const response = await page.goto('/docs');

    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("'unsafe-inline'");
    expect(csp).not.toContain("'unsafe-eval'");
    await page.locator('.opblock-summary').first().waitFor({ timeout: 15_000 });
    const operations = await page.locator('.opblock').count();
    expect(operations).toBeGreaterThan(20);
    await expect(
      page.locator('.opblock-summary-path', { hasText: '/pets/{petId}' }).first().isVisible(),
    ).resolves.toBe(true);
    // Opening an operation renders its parameters and responses, which is all script work.
    await page.locator('.opblock-summary', { hasText: '/auth/login' }).first().click();
    await page.locator('.opblock-body .responses-wrapper').first().waitFor();
    await context.close();
    expect(problems).toEqual([]);
  });

  it('should keep the API policy on everything outside /docs', async () => {
    const res = await t.http.get('/health/live').expect(200);
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none';frame-ancestors 'none'",
    );
  });
});
