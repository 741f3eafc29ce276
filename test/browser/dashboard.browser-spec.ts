import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Locator, Page } from 'playwright-core';
import {
  accessibilityViolations,
  checkPages,
  describeInBrowser,
  fitsWidth,
  heading,
  screenshot,
} from '../support/browser.js';
import { createUser } from '../support/auth.js';
import { consoleInBrowser } from '../support/console-browser.js';
import { waitFor } from '../support/wait.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

interface Counts {
  name: string;
  available: number;
  pending: number;
  sold: number;
}

interface ActivityDay {
  date: string;
  petsCreated: number;
  petsSold: number;
  logins: number;
  failedLogins: number;
  deliveriesSucceeded: number;
  deliveriesFailed: number;
  adoptionsRequested: number;
  adoptionsCompleted: number;
  adoptionsExpired: number;
  adoptionMedianHoursToComplete?: number;
}

describeInBrowser('Dashboard in the console', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver?.stop());
  // The webhook's receiver listens on loopback.
  const c = consoleInBrowser({
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    OUTBOX_POLL_INTERVAL_MS: '200',
  });

  /** Each row of a table as the text of its cells. */
  async function tableRows(table: Locator): Promise<string[][]> {
    const rows = await table.locator('tbody tr, tfoot tr').all();
    return Promise.all(
      rows.map(async (row) =>
        (await row.locator('th, td').allTextContents()).map((text) => text.trim()),
      ),
    );
  }

  /** A chart's section by its heading, with its numbers shown. */
  async function chart(page: Page, title: string): Promise<Locator> {
    const section = page.getByRole('region', { name: title });
    await section.getByText('Show the numbers').click();
    await section.getByRole('table').waitFor();
    return section;
  }

  let pets = 0;
  async function pet(categoryId: number, moves: string[] = []): Promise<number> {
    pets += 1;
    const { t } = c;
    const { id } = (
      await t.http
        .post('/v1/pets')
        .set(t.admin)
        .send({ name: `Dash ${pets}`, categoryId, status: 'available' })
        .expect(201)
    ).body;
    for (const status of moves) {
      await t.http.put(`/v1/pets/${id}`).set(t.admin).send({ status }).expect(200);
    }
    return id as number;
  }

  it("should chart the inventory and the last 30 days' activity, with the API's numbers in each table", async () => {
    const { t } = c;
    const category = async (name: string) =>
      (await t.http.post('/v1/categories').set(t.admin).send({ name }).expect(201)).body.id;
    const dogs = await category('Dash dogs');
    const cats = await category('Dash cats');
    await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: receiver.url('dashboard'), events: ['pet.created'] })
      .expect(201);
    await pet(dogs);
    await pet(dogs);
    await pet(dogs, ['pending']);
    await pet(dogs, ['pending', 'sold']);
    // The cat is adopted: requested, approved and completed today.
    const adopter = await createUser(t, { role: 'customer' });
    const adoption = await t.http
      .post('/v1/adoptions')
      .set(adopter.headers)
      .send({ petId: await pet(cats) })
      .expect(201);
    for (const move of ['approve', 'complete']) {
      await t.http.post(`/v1/adoptions/${adoption.body.id}/${move}`).set(t.admin).expect(200);
    }
    await t.http
      .post('/v1/auth/login')
      .send({ username: t.plainUser.username, password: 'not the password' })
      .expect(401);
    // Five pets created: five deliveries, counted once they have succeeded.
    await waitFor(async () => {
      const { days } = (await t.http.get('/v1/stats/activity').set(t.admin).expect(200)).body;
      return (days as ActivityDay[]).at(-1)!.deliveriesSucceeded === 5;
    }, 30_000);

    const page = await c.signedInPage();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Dashboard' })
      .click();
    await heading(page, 'Dashboard').waitFor();
    const inventoryChart = await chart(page, 'Pets by status per category');
    // Read after the page's sign-in, which is one of the day's logins.
    const inventory = (await t.http.get('/v1/pets/inventory').set(t.admin).expect(200))
      .body as Counts & { byCategory: Counts[] };
    const { days } = (await t.http.get('/v1/stats/activity').set(t.admin).expect(200)).body as {
      days: ActivityDay[];
    };

    const inventoryRows = await tableRows(inventoryChart.getByRole('table'));
    expect(inventoryRows).toContainEqual(['Dash dogs', '2', '1', '1', '4']);
    expect(inventoryRows).toEqual([
      ...inventory.byCategory.map((row) => [
        row.name,
        String(row.available),
        String(row.pending),
        String(row.sold),
        String(row.available + row.pending + row.sold),
      ]),
      [
        'All categories',
        ...[inventory.available, inventory.pending, inventory.sold].map(String),
        String(inventory.available + inventory.pending + inventory.sold),
      ],
    ]);
    // The dogs' bar: one segment per status, as wide as its count.
    const dogsBar = inventoryChart.locator('.hbar', { hasText: 'Dash dogs' }).locator('rect');
    expect(
      await dogsBar.evaluateAll((rects) => rects.map((rect) => rect.getAttribute('width'))),
    ).toEqual(['2', '1', '1']);

    const today = days.at(-1)!;
    expect(today).toMatchObject({
      petsCreated: 5,
      petsSold: 2,
      deliveriesSucceeded: 5,
      adoptionsRequested: 1,
      adoptionsCompleted: 1,
      adoptionsExpired: 0,
      adoptionMedianHoursToComplete: 0,
    });
    expect(today.failedLogins).toBeGreaterThanOrEqual(1);
    const series: [string, (keyof ActivityDay)[]][] = [
      ['Pets created and sold per day', ['petsCreated', 'petsSold']],
      ['Logins per day', ['logins', 'failedLogins']],
      ['Webhook deliveries per day', ['deliveriesSucceeded', 'deliveriesFailed']],
      [
        'Adoptions per day',
        [
          'adoptionsRequested',
          'adoptionsCompleted',
          'adoptionsExpired',
          'adoptionMedianHoursToComplete',
        ],
      ],
    ];
    for (const [title, keys] of series) {
      const section = await chart(page, title);
      expect({ title, rows: await tableRows(section.getByRole('table')) }).toEqual({
        title,
        rows: days.map((day) => [day.date, ...keys.map((key) => String(day[key] ?? '–'))]),
      });
    }
    await page
      .getByText('Median time from request to completion: 0 hours (adoptions completed on')
      .waitFor();
    await screenshot(page, 'dashboard-numbers');
    await page.reload();
    await heading(page, 'Dashboard').waitFor();
    await page.getByRole('region', { name: 'Adoptions per day' }).waitFor();
    await screenshot(page, 'dashboard');
  });

  it('should not show the dashboard to a plain user', async () => {
    const page = await c.signedInPage('user');
    await page.getByRole('link', { name: 'API keys' }).waitFor();
    expect(await page.getByRole('link', { name: 'Dashboard' }).count()).toBe(0);
    await page.goto('/console/dashboard');
    await page.getByText('Only administrators can see the dashboard.').waitFor();
  });

  it('should fit a 390-pixel-wide screen and pass axe WCAG 2.1 AA checks, its tables opened too', async () => {
    const page = await c.signedInPage('admin', '/console', { width: 390, height: 844 });
    await checkPages(page, [
      { route: '/console/dashboard', title: 'Dashboard', name: 'phone-dashboard' },
    ]);
    for (const summary of await page.getByText('Show the numbers').all()) await summary.click();
    expect(await fitsWidth(page)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'phone-dashboard-numbers');
  });
});
