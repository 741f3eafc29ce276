import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  accessibilityViolations,
  checkPages,
  describeInBrowser,
  fitsWidth,
  heading,
  screenshot,
} from '../support/browser.js';
import { consoleInBrowser } from '../support/console-browser.js';
import type { TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { verified, WebhookReceiver } from '../support/webhook-receiver.js';

describeInBrowser('Webhooks in the console', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(() => receiver?.stop());
  const c = consoleInBrowser({
    // The receiver listens on loopback.
    WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
    OUTBOX_POLL_INTERVAL_MS: '200',
    // A failed delivery waits for the Retry button rather than a timer.
    WEBHOOKS_RETRY_BASE_MS: '3600000',
  });
  const { signedInPage } = c;
  let t: TestApp;
  beforeAll(() => {
    t = c.t;
  });

  let categoryId: number | undefined;
  async function createPet(name: string): Promise<number> {
    categoryId ??= (
      await t.http.post('/v1/categories').set(t.admin).send({ name: 'Webhook pets' }).expect(201)
    ).body.id;
    return (
      await t.http.post('/v1/pets').set(t.admin).send({ name, categoryId, status: 'available' })
    ).body.id;
  }

  let receivers = 0;
  /** A receiver path of its own, so that each test counts only its deliveries. */
  function receiverName(): string {
    receivers += 1;
    return String(receivers);
  }

  /** Waits until the receiver has had `count` requests at `name`. */
  const received = (name: string, count: number) =>
    waitFor(() => Promise.resolve(receiver.to(name).length === count), 15_000);

  async function createWebhook(name: string, events = ['pet.created']) {
    const res = await t.http
      .post('/v1/webhooks')
      .set(t.admin)
      .send({ url: receiver.url(name), events })
      .expect(201);
    return res.body as { id: number; secret: string; url: string };
  }

  it('should add a webhook shown with its secret once, deliver to it, and retry a failed delivery', async () => {
    const name = receiverName();
    const page = await signedInPage();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Webhooks' })
      .click();
    await heading(page, 'Webhooks').waitFor();

    // Nothing filled in, then a cloud metadata address (refused whatever the setting).
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.locator('#field-url-error').waitFor();
    expect(await page.locator('#field-events-error').textContent()).toBe('Choose at least one.');
    await page.waitForFunction(() => document.activeElement?.id === 'field-url');
    await page.getByLabel('URL').fill('http://169.254.169.254/latest/meta-data');
    await page.getByLabel('pet.created').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page
      .locator('#field-url-error')
      .getByText('Webhooks cannot be sent to a link-local address.')
      .waitFor();
    expect(await page.getByLabel('URL').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'webhooks-refused-address');

    // The receiver answers 503 at first.
    receiver.reply(name, { status: 503, body: 'receiver is down for maintenance' });
    const url = receiver.url(name);
    await page.getByLabel('URL').fill(url);
    await page.getByLabel('pet.status_changed').check();
    await page.getByLabel('Description (optional)').fill('Shop front');
    await page.getByRole('button', { name: 'Add webhook' }).click();

    const field = page.getByLabel('Signing secret', { exact: true });
    await field.waitFor();
    const secret = await field.inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await page.getByText('It will not be shown again.').count()).toBe(1);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot(page, 'webhooks-new-secret');

    await page.getByRole('button', { name: 'I have stored it' }).click();
    // The panel is gone; focus is back at the top of the page.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await page.reload();
    const row = page.getByRole('row', { name: new RegExp(url) });
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);
    // An admin's list names each webhook's owner.
    expect(await row.getByRole('cell').allTextContents()).toEqual([
      'admin',
      'pet.createdpet.status_changed',
      'enabled',
      expect.any(String),
    ]);
    await screenshot(page, 'webhooks');

    await row.getByRole('link', { name: url }).click();
    await heading(page, `Webhook to ${url}`).waitFor();
    await page.getByText('Nothing delivered yet.').waitFor();
    const petId = await createPet('Hooked');
    await received(name, 1);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const delivery = page.getByRole('row', { name: /pet\.created/ });
    await delivery.getByRole('cell', { name: /^503 in \d+ ms/ }).waitFor();
    expect(await delivery.getByRole('link', { name: `Pet ${petId}` }).count()).toBe(1);
    expect(await delivery.getByRole('cell').nth(3).textContent()).toBe('1');
    expect(await delivery.textContent()).toContain('pending');
    await screenshot(page, 'webhook-deliveries-failing');

    // The receiver is back: Retry sends the same event again, signed with the secret shown.
    await delivery.getByRole('button', { name: /^Retry delivery/ }).click();
    await page.getByText(/is being sent again\./).waitFor();
    await received(name, 2);
    await delivery.locator('.badge', { hasText: 'succeeded' }).waitFor();
    const [first, second] = receiver.to(name);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verified(secret, second)).toMatchObject({ type: 'pet.created', data: { id: petId } });
    await screenshot(page, 'webhook-detail');

    // The status filter follows the address, Back included.
    const filter = page.getByRole('form', { name: 'Filter deliveries' });
    await filter.getByLabel('Status').selectOption('failed');
    await filter.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No failed deliveries.').waitFor();
    await page.goBack();
    await delivery.waitFor();
    expect(await filter.getByLabel('Status').inputValue()).toBe('');

    // The attempt log of that delivery, newest first.
    await delivery.getByRole('rowheader').getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /^Delivery \d+$/ }).waitFor();
    const attempts = page.getByRole('table').getByRole('row');
    await expect(attempts.count()).resolves.toBe(3);
    expect(await attempts.nth(1).getByRole('cell').first().textContent()).toBe('204');
    expect(await attempts.nth(2).textContent()).toContain('receiver is down for maintenance');
    await screenshot(page, 'webhook-delivery');
  });

  it('should disable and enable a webhook, rotate its secret, edit it and delete it', async () => {
    const name = receiverName();
    const { id, secret, url } = await createWebhook(name);
    const page = await signedInPage('admin', `/console/webhooks/${id}`);
    await heading(page, `Webhook to ${url}`).waitFor();
    const apiWebhook = async () =>
      (await t.http.get(`/v1/webhooks/${id}`).set(t.admin).expect(200)).body;

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Webhook disabled: nothing is sent until it is enabled again.').waitFor();
    expect((await apiWebhook()).enabled).toBe(false);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Webhook enabled: waiting deliveries go out again.').waitFor();
    expect((await apiWebhook()).enabled).toBe(true);

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    expect(await dialog.textContent()).toContain(
      'The old secret keeps signing every delivery alongside the new one for 24 hours',
    );
    await screenshot(page, 'webhook-rotate-confirm');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    const field = page.getByLabel('Signing secret', { exact: true });
    await field.waitFor();
    const rotated = await field.inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByText(/The old secret also signs every delivery until/).waitFor();
    await screenshot(page, 'webhook-rotated-secret');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByText(/Also signs until/).waitFor();

    // A delivery now carries both signatures: each secret verifies it.
    const petId = await createPet('Rotated');
    await received(name, 1);
    const [sent] = receiver.to(name);
    for (const key of [secret, rotated]) {
      expect(verified(key, sent)).toMatchObject({ data: { id: petId } });
    }

    const edit = page.getByRole('form', { name: 'Edit' });
    await edit.getByLabel('URL').fill('http://someone:secret@example.com/hook');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page
      .locator('#field-url-error')
      .getByText(
        'Enter a full address starting with http:// or https://, without a user name or password.',
      )
      .waitFor();
    await edit.getByLabel('URL').fill(url);
    await edit.getByLabel('pet.deleted').check();
    await edit.getByLabel('Description (optional)').fill('Stock feed');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.getByText('Changes saved.').waitFor();
    expect(await apiWebhook()).toMatchObject({
      url,
      events: ['pet.created', 'pet.deleted'],
      description: 'Stock feed',
    });

    // Disabled, a retried delivery waits for the webhook, and the page says so.
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page
      .getByRole('row', { name: /pet\.created/ })
      .getByRole('button', { name: /^Retry delivery/ })
      .click();
    await page.getByText(/will be sent once the webhook is enabled again\./).waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this webhook?' })
      .getByRole('button', { name: 'Delete webhook' })
      .click();
    await heading(page, 'Webhooks').waitFor();
    await t.http.get(`/v1/webhooks/${id}`).set(t.admin).expect(404);
  });

  it('should let a plain user add a webhook for the pets it chooses, listing only its own', async () => {
    const admins = await createWebhook(receiverName());
    const name = receiverName();
    const page = await signedInPage('user');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Webhooks' })
      .click();
    await heading(page, 'Webhooks').waitFor();
    await page.getByRole('heading', { name: 'Your webhooks' }).waitFor();
    expect(await page.getByRole('link', { name: admins.url }).count()).toBe(0);

    await page.getByLabel('URL').fill(receiver.url(name));
    await page.getByLabel('pet.created').check();
    await page.getByLabel('sold', { exact: true }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByLabel('Signing secret', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('link', { name: receiver.url(name) }).waitFor();
    const [own] = (await t.http.get('/v1/webhooks').set(t.user).expect(200)).body.webhooks as {
      url: string;
      filters: unknown;
    }[];
    expect(own).toEqual(
      expect.objectContaining({ url: receiver.url(name), filters: { statuses: ['sold'] } }),
    );

    await createPet('Not sold');
    const sold = (
      await t.http
        .post('/v1/pets')
        .set(t.admin)
        .send({ name: 'Sold', categoryId, status: 'sold' })
        .expect(201)
    ).body.id as number;
    await received(name, 1);
    expect((JSON.parse(receiver.to(name)[0].body) as { data: { id: number } }).data.id).toBe(sold);
  });

  it('should fit a 375-pixel-wide screen and pass axe WCAG 2.1 AA checks', async () => {
    const name = receiverName();
    const { id, url } = await createWebhook(name);
    await createPet('Pocket hook');
    await received(name, 1);
    const { deliveries } = (
      await t.http.get(`/v1/webhooks/${id}/deliveries`).set(t.admin).expect(200)
    ).body as { deliveries: { id: number }[] };
    const page = await signedInPage('admin', '/console', { width: 375, height: 812 });
    const pages = [
      { route: '/console/webhooks', title: 'Webhooks', name: 'phone-webhooks' },
      { route: `/console/webhooks/${id}`, title: `Webhook to ${url}`, name: 'phone-webhook' },
      {
        route: `/console/webhooks/${id}/deliveries/${deliveries[0].id}`,
        title: `Delivery ${deliveries[0].id}`,
        name: 'phone-webhook-delivery',
      },
    ];
    await checkPages(page, pages);

    // The form with its errors, the secret shown once, and the rotation dialog.
    await page.goto('/console/webhooks');
    await heading(page, 'Webhooks').waitFor();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.locator('#field-events-error').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByLabel('URL').fill(receiver.url(receiverName()));
    await page.getByLabel('pet.deleted').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByLabel('Signing secret', { exact: true }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'phone-webhooks-new-secret');

    await page.goto(`/console/webhooks/${id}`);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'phone-webhook-rotate-confirm');
    await page.keyboard.press('Escape');
  });
});
