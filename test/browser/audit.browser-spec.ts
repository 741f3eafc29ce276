import { expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import {
  accessibilityViolations,
  checkPages,
  describeInBrowser,
  fitsWidth,
  heading,
  screenshot,
} from '../support/browser.js';
import { consoleInBrowser } from '../support/console-browser.js';
import { waitFor } from '../support/wait.js';

interface AuditEntry {
  id: number;
  action: string;
  target?: { type: string; id: number };
}

describeInBrowser('Audit log in the console', () => {
  // A webhook to a loopback address that no one answers: its creation is what is audited.
  const c = consoleInBrowser({ WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' });

  const entries = async (query: Record<string, string | number>): Promise<AuditEntry[]> =>
    (await c.t.http.get('/v1/audit-events').query(query).set(c.t.admin).expect(200)).body
      .auditEvents;

  /** Waits until the audit log has an entry of `action` about `targetId` (recorded after commit). */
  const audited = (action: string, targetId: number) =>
    waitFor(async () => (await entries({ action, targetId })).length === 1);

  /** The rows of the page's entries whose text holds every one of `texts`. */
  const rowsWith = (page: Page, ...texts: string[]) =>
    texts.reduce(
      (rows, text) => rows.filter({ hasText: text }),
      page.locator('table.audit > tbody > tr'),
    );

  /** The before/after table of a row's changes, opened, as [field, before, after] lines. */
  async function diffOf(page: Page, ...texts: string[]): Promise<string[][]> {
    const row = rowsWith(page, ...texts);
    await row.locator('summary').click();
    const lines = row.locator('details tbody tr');
    await lines.first().waitFor();
    return Promise.all(
      (await lines.all()).map(async (line) =>
        (await line.locator('th, td').allTextContents()).map((text) => text.trim()),
      ),
    );
  }

  let categories = 0;
  async function category(): Promise<{ id: number; name: string }> {
    categories += 1;
    const res = await c.t.http
      .post('/v1/categories')
      .set(c.t.admin)
      .send({ name: `Audited ${categories}` })
      .expect(201);
    return res.body;
  }

  it('should show entries with their before/after diff, link actor and target, and filter through the address', async () => {
    const { t } = c;
    const { id: categoryId, name } = await category();
    await t.http
      .put(`/v1/categories/${categoryId}`)
      .set(t.admin)
      .send({ name: 'Audited birds', description: 'Feathered' })
      .expect(200);
    const url = 'http://127.0.0.1:9/audited-hook';
    const webhook = (
      await t.http
        .post('/v1/webhooks')
        .set(t.admin)
        .send({ url, events: ['pet.deleted'] })
        .expect(201)
    ).body as { id: number };
    await t.http
      .post('/v1/auth/login')
      .send({ username: t.plainUser.username, password: 'not the password' })
      .expect(401);
    await audited('category.updated', categoryId);
    await audited('webhook.created', webhook.id);

    const page = await c.signedInPage();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Audit' })
      .click();
    await heading(page, 'Audit log').waitFor();

    // The category's rename, and a secret shown only as changed.
    expect(await diffOf(page, 'category.updated', `category ${categoryId}`)).toEqual([
      ['description', 'none', 'Feathered'],
      ['name', name, 'Audited birds'],
    ]);
    expect(await diffOf(page, 'webhook.created', `webhook ${webhook.id}`)).toEqual([
      ['enabled', 'none', 'true'],
      ['events', 'none', '["pet.deleted"]'],
      ['secret', 'none', '[changed]'],
      ['url', 'none', url],
    ]);
    // A refused login names the username tried, with no user to link to.
    const refused = rowsWith(page, 'auth.login', 'failed', t.plainUser.username);
    expect(await refused.count()).toBe(1);
    expect(await refused.getByRole('link', { name: t.plainUser.username }).count()).toBe(0);
    await screenshot(page, 'audit');

    // The actor links to what that user did; the target to its page.
    const renamed = rowsWith(page, 'category.updated', `category ${categoryId}`);
    expect(
      await renamed.getByRole('link', { name: t.adminUser.username }).getAttribute('href'),
    ).toBe(`/console/audit?actorId=${t.adminUser.id}`);
    await rowsWith(page, 'webhook.created')
      .getByRole('link', { name: `webhook ${webhook.id}` })
      .click();
    await heading(page, `Webhook to ${url}`).waitFor();
    await page.goBack();
    await heading(page, 'Audit log').waitFor();

    // A filter changes the list and the address; Back restores both.
    const filter = page.getByRole('form', { name: 'Filter entries' });
    await filter.getByLabel('Action').selectOption('category.updated');
    await filter.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/\/console\/audit\?action=category\.updated$/);
    await rowsWith(page, 'category.created').first().waitFor({ state: 'detached' });
    expect(await page.locator('table.audit > tbody > tr').count()).toBe(
      (await entries({ action: 'category.updated' })).length,
    );
    await filter.getByLabel('Target type').selectOption('webhook');
    await filter.getByLabel('Action').selectOption('');
    await filter.getByLabel('Target id').fill(String(webhook.id));
    await filter.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/\/console\/audit\?targetType=webhook&targetId=\d+$/);
    await rowsWith(page, 'category.updated').first().waitFor({ state: 'detached' });
    expect(
      await page
        .locator('table.audit > tbody > tr > td[data-label="Action"] > code')
        .allTextContents(),
    ).toEqual(['webhook.created']);
    await page.goBack();
    await page.waitForURL(/\?action=category\.updated$/);
    await rowsWith(page, 'category.updated').first().waitFor();
    expect(await filter.getByLabel('Action').inputValue()).toBe('category.updated');
    expect(await filter.getByLabel('Target id').inputValue()).toBe('');
  });

  it('should load older entries by cursor, 50 at a time', async () => {
    const created: number[] = [];
    for (let i = 0; i < 55; i += 1) created.push((await category()).id);
    await audited('category.created', created.at(-1)!);
    const total = (await entries({ action: 'category.created', limit: 100 })).length;
    expect(total).toBeGreaterThan(50);

    const page = await c.signedInPage('admin', '/console/audit?action=category.created');
    const rows = page.locator('table.audit > tbody > tr');
    await rows.nth(49).waitFor();
    expect(await rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Load older entries' }).click();
    await page.getByText('No older entries.').waitFor();
    expect(await rows.count()).toBe(total);
    // Focus moves to the first entry added.
    expect(
      await page.evaluate(() =>
        [...document.querySelectorAll('table.audit > tbody > tr')].indexOf(document.activeElement!),
      ),
    ).toBe(50);
  });

  it('should not show the audit log to a plain user', async () => {
    const page = await c.signedInPage('user');
    await page.getByRole('link', { name: 'API keys' }).waitFor();
    expect(await page.getByRole('link', { name: 'Audit' }).count()).toBe(0);
    await page.goto('/console/audit');
    await page.getByText('Only administrators can read the audit log.').waitFor();
  });

  it('should fit a 390-pixel-wide screen and pass axe WCAG 2.1 AA checks, a diff opened too', async () => {
    const { id: categoryId } = await category();
    await c.t.http
      .put(`/v1/categories/${categoryId}`)
      .set(c.t.admin)
      .send({ description: 'A rather long description that has to wrap on a phone screen' })
      .expect(200);
    await audited('category.updated', categoryId);
    const page = await c.signedInPage('admin', '/console', { width: 390, height: 844 });
    await checkPages(page, [{ route: '/console/audit', title: 'Audit log', name: 'phone-audit' }]);
    await diffOf(page, 'category.updated', `category ${categoryId}`);
    expect(await fitsWidth(page)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'phone-audit-diff');
  });
});
