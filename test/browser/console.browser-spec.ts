import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiKey, createApiKey, createUser } from '../support/auth.js';
import {
  accessibilityViolations,
  checkPages,
  describeInBrowser,
  heading,
  screenshot,
} from '../support/browser.js';
import { consoleInBrowser } from '../support/console-browser.js';
import { jpegImage } from '../support/images.js';
import type { TestApp } from '../support/test-app.js';

describeInBrowser('Web console in Chromium', () => {
  const c = consoleInBrowser();
  const { newPage, signIn, signedInPage } = c;
  let t: TestApp;
  let origin: string;
  beforeAll(() => {
    ({ t, origin } = c);
  });

  let categories = 0;
  async function category(): Promise<{ id: number; name: string }> {
    categories += 1;
    const res = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: `Console category ${categories}` })
      .expect(201);
    return res.body;
  }

  async function pet(fields: Record<string, unknown>): Promise<number> {
    const res = await t.http.post('/v1/pets').set(t.admin).send(fields).expect(201);
    return res.body.id;
  }

  const apiPet = async (id: number) =>
    (await t.http.get(`/v1/pets/${id}`).set(t.admin).expect(200)).body;

  describe('signing in', () => {
    it('should sign in with the keyboard alone, and keep the token out of cookies', async () => {
      const page = await newPage();
      await page.goto('/console');
      await heading(page, 'Sign in').waitFor();
      await screenshot(page, 'sign-in');
      await page.keyboard.press('Tab');
      await page.keyboard.type(t.adminUser.username);
      await page.keyboard.press('Tab');
      await page.keyboard.type(t.adminUser.password);
      await page.keyboard.press('Enter');
      await heading(page, 'Pets').waitFor();
      expect(await page.getByText(`Signed in as ${t.adminUser.username}`).count()).toBe(1);
      // The only cookies: the refresh token's, out of the script's reach.
      const cookies = await page.context().cookies();
      expect(cookies.map(({ name, path, httpOnly }) => ({ name, path, httpOnly }))).toEqual([
        { name: 'petstore_refresh', path: '/v1/auth/refresh', httpOnly: true },
        { name: 'petstore_refresh', path: '/v1/auth/logout', httpOnly: true },
      ]);
      expect(await page.evaluate(() => document.cookie)).toBe('');
    });

    it('should ask for no session before signing in or after signing out, and log no error', async () => {
      const member = await createUser(t);
      const page = await newPage();
      const refreshes: number[] = [];
      const errors: string[] = [];
      page.on('response', (response) => {
        if (response.url().endsWith('/v1/auth/refresh')) refreshes.push(response.status());
      });
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      const signInShown = async (route?: string) => {
        await (route ? page.goto(route) : page.reload());
        await heading(page, 'Sign in').waitFor();
        await page.waitForLoadState('networkidle');
      };
      for (const route of ['/console', '/console/pets/1', '/console/settings/api-keys']) {
        await signInShown(route);
      }
      expect({ refreshes, errors }).toEqual({ refreshes: [], errors: [] });

      // Signed in, a reload comes back through the cookie; signed out, nothing is asked.
      await signIn(page, member.username, member.password);
      await page.reload();
      await heading(page, 'API keys').waitFor();
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await heading(page, 'Sign in').waitFor();
      await signInShown();
      expect({ refreshes, errors }).toEqual({ refreshes: [200], errors: [] });

      // A session ended elsewhere is asked for once, refused, and then no more.
      await signIn(page, member.username, member.password);
      await t.http.delete(`/v1/users/${member.id}/sessions`).set(t.admin).expect(200);
      await signInShown();
      await signInShown();
      expect(refreshes).toEqual([200, 401]);
    });

    it('should refuse a wrong password with the API message', async () => {
      const page = await newPage();
      await page.goto('/console');
      await page.getByLabel('Username').fill(t.adminUser.username);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/username or password/i);
      await heading(page, 'Sign in').waitFor();
    });

    it('should renew the token through the cookie before it expires', async () => {
      const member = await createUser(t);
      const page = await newPage();
      await page.clock.install();
      await page.goto('/console/settings/api-keys');
      await signIn(page, member.username, member.password);
      await heading(page, 'API keys').waitFor();
      const renewed = page.waitForResponse(
        (response) => response.url().endsWith('/v1/auth/refresh') && response.status() === 200,
      );
      await page.clock.fastForward('01:00:01');
      await renewed;
      await page.getByRole('link', { name: 'Pets' }).click();
      await heading(page, 'Pets').waitFor();
      expect(await page.getByRole('button', { name: 'Sign out', exact: true }).count()).toBe(1);
    });

    it('should sign out when the token expires and the session cannot be renewed, saying so', async () => {
      const member = await createUser(t);
      const page = await newPage();
      await page.clock.install();
      await page.goto('/console/settings/api-keys');
      await signIn(page, member.username, member.password);
      await heading(page, 'API keys').waitFor();
      // The refresh cookie dies with the session (as on another device's "sign out everywhere").
      await t.http.delete(`/v1/users/${member.id}/sessions`).set(t.admin).expect(200);
      await page.clock.fastForward('01:00:01');
      await heading(page, 'Sign in').waitFor();
      expect(await page.getByRole('status').first().textContent()).toBe(
        'Your session has expired. Sign in again.',
      );
    });

    it('should sign out, saying so, when the API refuses the token and the session', async () => {
      const member = await createUser(t);
      const page = await newPage();
      await page.goto('/console/settings/api-keys');
      await signIn(page, member.username, member.password);
      await heading(page, 'API keys').waitFor();
      await t.http.delete(`/v1/users/${member.id}/sessions`).set(t.admin).expect(200);
      await page.getByRole('link', { name: 'Pets' }).click();
      await heading(page, 'Sign in').waitFor();
      expect(await page.getByRole('status').first().textContent()).toBe(
        'The service no longer accepts your sign-in. Sign in again.',
      );
    });

    it('should keep the session across a reload of the tab, and end it on sign-out', async () => {
      const page = await signedInPage('admin', '/console/settings/api-keys');
      await page.reload();
      await heading(page, 'API keys').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading(page, 'Sign in').waitFor();
      await page.reload();
      await heading(page, 'Sign in').waitFor();
    });
  });

  describe('API keys', () => {
    it('should create a key shown once, which works until it is revoked', async () => {
      const page = await signedInPage();
      await page.getByRole('link', { name: 'API keys' }).click();
      await heading(page, 'API keys').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Shop front');
      await page.getByLabel('Test (pk_test_)').check();
      await page.getByRole('button', { name: 'Create key' }).click();

      const field = page.getByLabel('API key', { exact: true });
      await field.waitFor();
      const key = await field.inputValue();
      expect(key).toMatch(/^pk_test_[0-9A-Za-z]{38}$/);
      expect(await page.getByText('It will not be shown again.').count()).toBe(1);
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await screenshot(page, 'api-keys-new-key');

      const used = await fetch(`${origin}/v1/pets`, { headers: apiKey(key) });
      expect(used.status).toBe(200);

      await page.getByRole('button', { name: 'I have copied the key' }).click();
      await page.reload();
      const row = page.getByRole('row', { name: /Shop front/ });
      await row.waitFor();
      expect(await page.content()).not.toContain(key);
      expect(await row.textContent()).toContain(key.slice(0, 12));
      expect(await row.locator('td[data-label="Last used"]').textContent()).not.toBe('Never');

      await page.getByRole('button', { name: 'Revoke Shop front' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke “Shop front”?' });
      await dialog.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText('Key “Shop front” revoked.').waitFor();
      expect(await row.count()).toBe(0);

      const refused = await fetch(`${origin}/v1/pets`, { headers: apiKey(key) });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { code: string }).code).toBe('INVALID_API_KEY');
    });

    it('should keep the key when the revocation is cancelled', async () => {
      const page = await signedInPage('admin', '/console/settings/api-keys');
      await page.getByLabel('Name', { exact: true }).fill('Kept key');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByLabel('API key', { exact: true }).inputValue();
      const revoke = page.getByRole('button', { name: 'Revoke Kept key' });
      await revoke.click();
      const dialog = page.getByRole('dialog', { name: 'Revoke “Kept key”?' });
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      // Focus goes back to the button that opened the dialog once the dialog has closed.
      await page.waitForFunction(
        () => document.activeElement?.getAttribute('aria-label') === 'Revoke Kept key',
      );
      expect(await page.getByRole('row', { name: /Kept key/ }).count()).toBe(1);
      expect((await fetch(`${origin}/v1/pets`, { headers: apiKey(key) })).status).toBe(200);
    });

    it('should create a read-only key from the preset, whose scopes the list shows', async () => {
      const page = await signedInPage('user', '/console/settings/api-keys');
      await heading(page, 'API keys').waitFor();
      // A plain user is offered its role's scopes only.
      expect(await page.getByRole('checkbox', { name: 'audit:read' }).count()).toBe(0);
      await page.getByLabel('Name', { exact: true }).fill('Catalogue reader');
      await page.getByRole('button', { name: 'Read only' }).click();
      expect(await page.getByRole('checkbox', { name: 'pets:write' }).isChecked()).toBe(false);
      const expiresOn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
      await page.getByLabel('Expires on (optional)').fill(expiresOn);
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByLabel('API key', { exact: true }).inputValue();

      await page.getByRole('button', { name: 'I have copied the key' }).click();
      const row = page.getByRole('row', { name: /Catalogue reader/ });
      const scopes = row.locator('td[data-label="Scopes"]');
      expect((await scopes.getByRole('listitem').allTextContents()).sort()).toEqual([
        'adoptions:read',
        'categories:read',
        'pets:read',
        'users:read',
      ]);
      expect(await row.locator('td[data-label="Expires"]').textContent()).not.toBe('Never');
      await screenshot(page, 'api-keys');

      expect((await fetch(`${origin}/v1/pets`, { headers: apiKey(key) })).status).toBe(200);
      const refused = await fetch(`${origin}/v1/categories`, {
        method: 'POST',
        headers: { ...apiKey(key), 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Not allowed' }),
      });
      expect(refused.status).toBe(403);
    });

    it('should roll a key: the new one shown once, the old one listed and working in its grace', async () => {
      const page = await signedInPage('admin', '/console/settings/api-keys');
      await page.getByLabel('Name', { exact: true }).fill('Rolled key');
      await page.getByRole('button', { name: 'Create key' }).click();
      const old = await page.getByLabel('API key', { exact: true }).inputValue();
      await page.getByRole('button', { name: 'I have copied the key' }).click();

      await page.getByRole('button', { name: 'Roll Rolled key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Roll “Rolled key”?' });
      const grace = dialog.getByLabel('Grace period (hours)');
      expect(await grace.inputValue()).toBe('24');
      await grace.fill('2');
      await dialog.getByRole('button', { name: 'Roll key' }).click();

      await page.getByText('Key “Rolled key” rolled.').waitFor();
      const rolled = await page.getByLabel('API key', { exact: true }).inputValue();
      expect(rolled).toMatch(/^pk_live_/);
      expect(rolled).not.toBe(old);
      const rows = page.getByRole('row', { name: /Rolled key/ });
      // Newest first: the old key below, ending with its grace.
      await rows.nth(1).waitFor();
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(1).getByText('expires soon').count()).toBe(1);
      await screenshot(page, 'api-keys-rolled');
      expect((await fetch(`${origin}/v1/pets`, { headers: apiKey(rolled) })).status).toBe(200);
      expect((await fetch(`${origin}/v1/pets`, { headers: apiKey(old) })).status).toBe(200);

      await page.getByRole('button', { name: 'I have copied the key' }).click();
      await page.reload();
      await rows.nth(1).waitFor();
      expect(await rows.count()).toBe(2);
      expect(await page.content()).not.toContain(rolled);
    });

    it('should show the API error next to the name', async () => {
      const page = await signedInPage('admin', '/console/settings/api-keys');
      await page.getByRole('button', { name: 'Create key' }).click();
      const name = page.getByLabel('Name', { exact: true });
      await page.locator('#field-name-error').waitFor();
      expect(await name.getAttribute('aria-invalid')).toBe('true');
      expect(await name.getAttribute('aria-describedby')).toContain('field-name-error');
    });

    it('should list every key of a full account and show the refusal of one more', async () => {
      const owner = await createUser(t);
      let res;
      do {
        res = await t.http
          .post('/v1/api-keys')
          .set(owner.headers)
          .send({ name: 'filler', mode: 'live' });
      } while (res.status === 201);
      expect(res.body.code).toBe('API_KEY_LIMIT_REACHED');
      const page = await newPage();
      await page.goto('/console/settings/api-keys');
      await signIn(page, owner.username, owner.password);
      await page.getByLabel('Name', { exact: true }).fill('One too many');
      await page.getByRole('button', { name: 'Create key' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/at most 10 API keys/);
      expect(await page.getByRole('button', { name: 'Revoke filler' }).count()).toBe(10);
    });
  });

  describe('pets', () => {
    it('should create a pet and edit it, showing the API validation errors by their fields', async () => {
      const { name: categoryName } = await category();
      const page = await signedInPage();
      await page.getByRole('link', { name: 'Add a pet' }).click();
      await heading(page, 'Add a pet').waitFor();
      await page.getByLabel('Name').fill('   ');
      await page.getByLabel('Category').selectOption({ label: categoryName });
      await page.getByLabel('Age in years (optional)').fill('-2');
      await page.getByRole('button', { name: 'Add pet' }).click();

      await page.locator('#field-name-error').waitFor();
      // The API's messages, in plain words under their inputs.
      expect(await page.locator('#field-name-error').textContent()).toBe('This cannot be empty.');
      expect(await page.locator('#field-age-error').textContent()).toBe('Enter 0 or more.');
      expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
      await page.waitForFunction(() => document.activeElement?.id === 'field-name');
      await screenshot(page, 'pet-form-errors');

      await page.getByLabel('Name').fill('Biscuit');
      await page.getByLabel('Age in years (optional)').fill('3');
      await page.getByLabel('Tags (optional)').fill('calm, small');
      await page.getByRole('button', { name: 'Add pet' }).click();
      await heading(page, 'Biscuit').waitFor();
      const id = Number(/\/console\/pets\/(\d+)$/.exec(page.url())![1]);
      expect(await apiPet(id)).toMatchObject({
        name: 'Biscuit',
        age: 3,
        status: 'available',
        category: { name: categoryName },
        tags: [{ name: 'calm' }, { name: 'small' }],
      });

      await page.getByRole('link', { name: 'Edit' }).click();
      await heading(page, 'Edit Biscuit').waitFor();
      await page.getByLabel('Breed (optional)').fill('Beagle');
      await page.getByLabel('Age in years (optional)').fill('250');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#field-age-error').waitFor();
      expect(await page.locator('#field-age-error').textContent()).toBe('Enter 200 or less.');
      expect(await page.locator('#field-breed-error').count()).toBe(0);
      expect(await apiPet(id)).not.toHaveProperty('breed');

      await page.getByLabel('Age in years (optional)').fill('4');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await heading(page, 'Biscuit').waitFor();
      expect(await apiPet(id)).toMatchObject({ breed: 'Beagle', age: 4 });
    });

    it('should refuse to overwrite a change made meanwhile, show it, and save the edits on top', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Shared', categoryId, status: 'available' });
      const page = await signedInPage('admin', `/console/pets/${id}/edit`);
      await heading(page, 'Edit Shared').waitFor();
      await t.http
        .put(`/v1/pets/${id}`)
        .set(t.admin)
        .send({ status: 'pending', tags: ['meanwhile'] })
        .expect(200);

      await page.getByLabel('Age in years (optional)').fill('abc');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#field-age-error').waitFor();
      await page.getByLabel('Age in years (optional)').fill('');
      await page.getByLabel('Breed (optional)').fill('Mixed');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const conflict = page.getByRole('alert');
      await conflict.getByText('Someone else changed this pet while you were editing it').waitFor();
      expect(await conflict.getByRole('listitem').allTextContents()).toEqual([
        'Status: pending',
        'Tags: meanwhile',
      ]);
      expect(await page.getByLabel('Status').inputValue()).toBe('pending');
      expect(await page.getByLabel('Breed (optional)').inputValue()).toBe('Mixed');
      expect((await apiPet(id)).breed).toBeUndefined();
      await screenshot(page, 'pet-form-conflict');

      await page.getByRole('button', { name: 'Save changes' }).click();
      await heading(page, 'Shared').waitFor();
      const saved = await apiPet(id);
      expect(saved).toMatchObject({
        breed: 'Mixed',
        status: 'pending',
        tags: [{ name: 'meanwhile' }],
      });
      expect(saved).not.toHaveProperty('age');
    });

    it('should show unset fields empty, and clear a field emptied in the form', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Blank', categoryId, status: 'available', breed: 'Pug' });
      const page = await signedInPage('admin', `/console/pets/${id}/edit`);
      await heading(page, 'Edit Blank').waitFor();
      expect(await page.getByLabel('Age in years (optional)').inputValue()).toBe('');
      expect(await page.getByLabel('Description (optional)').inputValue()).toBe('');
      expect(await page.getByLabel('Breed (optional)').inputValue()).toBe('Pug');

      await page.getByLabel('Breed (optional)').fill('');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await heading(page, 'Blank').waitFor();
      const saved = await apiPet(id);
      for (const field of ['age', 'breed', 'description']) {
        expect(saved).not.toHaveProperty(field);
      }
    });

    it('should offer only the status moves the API allows, and move the status', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Mover', categoryId, status: 'available' });
      const page = await signedInPage('admin', `/console/pets/${id}`);
      await heading(page, 'Mover').waitFor();
      const moves = page.getByRole('button', { name: /^Mark as / });
      expect(await moves.allTextContents()).toEqual(['Mark as pending']);

      await page.getByRole('button', { name: 'Mark as pending' }).click();
      await page.getByText('Status changed to pending.').waitFor();
      expect(await moves.allTextContents()).toEqual(['Mark as sold', 'Mark as available']);
      expect((await apiPet(id)).status).toBe('pending');

      await page.getByRole('link', { name: 'Edit' }).click();
      const status = page.getByLabel('Status');
      await status.waitFor();
      expect(await status.locator('option').allTextContents()).toEqual([
        'pending',
        'sold',
        'available',
      ]);
      await status.selectOption('sold');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await heading(page, 'Mover').waitFor();
      expect(await moves.allTextContents()).toEqual(['Mark as available']);
      expect((await apiPet(id)).status).toBe('sold');
    });

    it('should list the pet’s changes newest first, load older ones, and add a move made on the page', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Storied', categoryId, status: 'available' });
      const key = await createApiKey(t, t.admin, 'live', 'history');
      await t.http
        .put(`/v1/pets/${id}`)
        .set(apiKey(key.key))
        .send({ name: 'Storied one', breed: 'Collie' })
        .expect(200);
      await t.http.put(`/v1/pets/${id}`).set(t.admin).send({ status: 'pending' }).expect(200);
      // One page and one more: the history is read 20 changes at a time.
      for (let age = 1; age <= 20; age++) {
        await t.http.put(`/v1/pets/${id}`).set(t.admin).send({ age }).expect(200);
      }
      const page = await signedInPage('admin', `/console/pets/${id}`);
      const history = page.getByRole('region', { name: 'History' });
      const rows = history.locator('tbody tr');
      await history.getByText('Showing 20 of 23 changes.').waitFor();
      expect(await rows.first().getByRole('cell').allTextContents()).toEqual([
        expect.any(String),
        'You',
        'Updated: age',
      ]);

      await history.getByRole('button', { name: 'Load older changes' }).click();
      await history.getByText('All 23 changes.').waitFor();
      expect(await history.getByRole('button', { name: 'Load older changes' }).count()).toBe(0);
      // Focus goes on from the first row loaded.
      await page.waitForFunction(
        () => document.activeElement?.textContent?.includes('Status available → pending') ?? false,
      );
      const older = async (n: number) =>
        (await rows.nth(n).getByRole('cell').allTextContents()).slice(1);
      expect(await older(20)).toEqual(['You', 'Status available → pending']);
      expect(await older(21)).toEqual([`You, with the key ${key.prefix}…`, 'Updated: name, breed']);
      expect(await older(22)).toEqual(['You', 'Created']);
      await screenshot(page, 'pet-history');

      await page.getByRole('button', { name: 'Mark as sold' }).click();
      await history.getByText('Showing 20 of 24 changes.').waitFor();
      expect((await rows.first().getByRole('cell').allTextContents())[2]).toBe(
        'Status pending → sold',
      );
    });

    it('should show the refusal and the current status when someone else moved the pet first', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Contested', categoryId, status: 'available' });
      const page = await signedInPage('admin', `/console/pets/${id}`);
      await heading(page, 'Contested').waitFor();
      for (const status of ['pending', 'sold']) {
        await t.http.put(`/v1/pets/${id}`).set(t.admin).send({ status }).expect(200);
      }

      await page.getByRole('button', { name: 'Mark as pending' }).click();
      await page.getByRole('alert').getByText('Someone else changed this first.').waitFor();
      await page.getByRole('button', { name: 'Mark as available' }).waitFor();
      expect(await page.getByRole('button', { name: /^Mark as / }).allTextContents()).toEqual([
        'Mark as available',
      ]);
    });

    it('should upload an image with progress and show its thumbnail', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Photogenic', categoryId, status: 'available' });
      const page = await signedInPage('admin', `/console/pets/${id}`);
      await heading(page, 'Photogenic').waitFor();

      // A slow uplink, so that the upload takes long enough to watch its progress.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 256 * 1024,
      });
      const image = await jpegImage(1200, 900);
      await page.getByLabel('Image file').setInputFiles({
        name: 'photogenic.jpg',
        mimeType: 'image/jpeg',
        buffer: image,
      });
      await page.getByLabel('Description (optional)').fill('On the sofa');
      await page.getByRole('button', { name: 'Upload photo' }).click();
      await page.waitForFunction(() => {
        const progress = document.querySelector('progress');
        return progress !== null && progress.value > 0 && progress.value < 100;
      });
      const thumbnail = page.getByRole('img', { name: 'On the sofa' });
      await thumbnail.waitFor();
      // Confirmed next to the form that was used, not at the top of the page.
      await page
        .getByRole('form', { name: 'Upload a photo' })
        .getByRole('status')
        .getByText('Photo uploaded.')
        .waitFor();
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });

      const images = (await t.http.get(`/v1/pets/${id}/images`).set(t.admin).expect(200)).body
        .images;
      expect(images).toHaveLength(1);
      expect(await thumbnail.getAttribute('src')).toBe(images[0].thumbnailUrl);
      expect(await thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(256);
      await screenshot(page, 'pet-detail');

      await page.goto(`/console/pets?category=${encodeURIComponent('')}`);
      const card = page.getByRole('listitem').filter({ hasText: 'Photogenic' });
      const listed = card.locator('img');
      await listed.waitFor();
      expect(await listed.getAttribute('src')).toBe(images[0].thumbnailUrl);
      await screenshot(page, 'pets');
    });

    it('should show a placeholder, not an empty square, for a pet without photos', async () => {
      const { id: categoryId, name } = await category();
      await pet({ name: 'Camera shy', categoryId, status: 'available' });
      const page = await signedInPage(
        'admin',
        `/console/pets?category=${encodeURIComponent(name)}`,
      );
      const card = page.getByRole('listitem').filter({ hasText: 'Camera shy' });
      const placeholder = card.locator('svg.thumb-empty');
      await placeholder.waitFor();
      expect(await placeholder.locator('ellipse').count()).toBe(5);
      expect(await card.locator('img').count()).toBe(0);
    });

    it('should show the API refusal of a file that is not an image next to the file field', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Not a photo', categoryId, status: 'available' });
      const page = await signedInPage('admin', `/console/pets/${id}`);
      await page.getByLabel('Image file').setInputFiles({
        name: 'notes.jpg',
        mimeType: 'image/jpeg',
        buffer: Buffer.from('plain text, not an image'),
      });
      await page.getByRole('button', { name: 'Upload photo' }).click();
      await page.locator('#field-image-error').waitFor();
      expect(await page.getByLabel('Image file').getAttribute('aria-invalid')).toBe('true');
    });

    it('should filter the list by category and status', async () => {
      const cats = await category();
      const dogs = await category();
      await pet({ name: 'Tom', categoryId: cats.id, status: 'available' });
      await pet({ name: 'Felix', categoryId: cats.id, status: 'pending' });
      await pet({ name: 'Rex', categoryId: dogs.id, status: 'pending' });
      const page = await signedInPage();
      await page.getByLabel('Category').selectOption({ label: cats.name });
      await page.getByLabel('Status').selectOption('pending');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('Showing 1–1 of 1').waitFor();
      const names = page.locator('.pet-card h2');
      expect(await names.allTextContents()).toEqual(['Felix']);
      expect(new URL(page.url()).search).toBe(
        `?category=${encodeURIComponent(cats.name).replace(/%20/g, '+')}&status=pending`,
      );

      await page.goBack();
      await page.getByLabel('Category').selectOption({ label: cats.name });
      await page.getByLabel('Status').selectOption('');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('Showing 1–2 of 2').waitFor();
      expect(await names.allTextContents()).toEqual(['Felix', 'Tom']);
    });

    it('should search with a typo, keep the search in the URL, and count the matches beside the list', async () => {
      const dogs = await category();
      await pet({
        name: 'Goldie',
        categoryId: dogs.id,
        status: 'available',
        breed: 'Labrador',
        tags: ['calm'],
        age: 2,
      });
      await pet({
        name: 'Shadow',
        categoryId: dogs.id,
        status: 'pending',
        breed: 'Labrador',
        age: 6,
      });
      await pet({ name: 'Whiskers', categoryId: dogs.id, status: 'available', breed: 'Siamese' });
      const page = await signedInPage();
      await page.getByLabel('Search').fill('labrdor');
      await page.getByLabel('Sort').selectOption('name');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('Showing 1–2 of 2').waitFor();
      const names = page.locator('.pet-card h2');
      expect(await names.allTextContents()).toEqual(['Goldie', 'Shadow']);
      expect(new URL(page.url()).search).toBe('?q=labrdor&sort=name');
      const facets = page.getByRole('region', { name: 'Matching pets' });
      await facets.getByText('2 matching: 1 available · 1 pending · 0 sold').waitFor();

      await facets.getByRole('link', { name: 'calm (1)' }).click();
      await page.getByText('Showing 1–1 of 1').waitFor();
      expect(await names.allTextContents()).toEqual(['Goldie']);
      expect(new URL(page.url()).search).toBe('?q=labrdor&tag=calm&sort=name');

      await page.reload();
      await page.getByText('Showing 1–1 of 1').waitFor();
      await page.getByRole('link', { name: 'Remove tag calm' }).click();
      await page.getByText('Showing 1–2 of 2').waitFor();
      await page.getByLabel('Min age').fill('5');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('Showing 1–1 of 1').waitFor();
      expect(await names.allTextContents()).toEqual(['Shadow']);
    });

    it('should offer each order once, Best match first with a search and not without one', async () => {
      const page = await signedInPage('admin', '/console/pets?q=labrador');
      await heading(page, 'Pets').waitFor();
      const sort = page.getByLabel('Sort');
      const labels = () => sort.locator('option').allTextContents();
      expect(await labels()).toEqual([
        'Best match',
        'Newest first',
        'Oldest first',
        'Name A–Z',
        'Name Z–A',
        'Youngest first',
        'Oldest (age) first',
      ]);
      expect(await sort.evaluate((select: HTMLSelectElement) => select.selectedIndex)).toBe(0);
      // A shared link naming the order chooses the same entry.
      await page.goto('/console/pets?q=labrador&sort=relevance');
      await heading(page, 'Pets').waitFor();
      expect(await sort.evaluate((select: HTMLSelectElement) => select.selectedIndex)).toBe(0);

      await page.goto('/console/pets');
      await heading(page, 'Pets').waitFor();
      expect(await labels()).toEqual([
        'Newest first',
        'Oldest first',
        'Name A–Z',
        'Name Z–A',
        'Youngest first',
        'Oldest (age) first',
      ]);
    });

    it('should sum up the pets by status, overall and for the filtered category', async () => {
      const birds = await category();
      await pet({ name: 'Tweety', categoryId: birds.id, status: 'available' });
      await pet({ name: 'Polly', categoryId: birds.id, status: 'available' });
      const kiwi = await pet({ name: 'Kiwi', categoryId: birds.id, status: 'pending' });
      await t.http.put(`/v1/pets/${kiwi}`).set(t.admin).send({ status: 'sold' }).expect(200);
      const all = (await t.http.get('/v1/pets/inventory').set(t.admin).expect(200)).body;
      const page = await signedInPage();
      const summary = page.getByRole('region', { name: 'Inventory' });

      await summary
        .getByText(
          `All categories: ${all.available} available · ${all.pending} pending · ${all.sold} sold`,
        )
        .waitFor();
      await page.getByLabel('Category').selectOption({ label: birds.name });
      await page.getByRole('button', { name: 'Filter' }).click();

      await summary.getByText(`${birds.name}: 2 available · 0 pending · 1 sold`).waitFor();
    });

    it('should page through a long list, 20 pets a page', async () => {
      const crowd = await category();
      for (let n = 1; n <= 21; n++) {
        await pet({ name: `Crowd ${n}`, categoryId: crowd.id, status: 'available' });
      }
      const page = await signedInPage('admin', `/console/pets?category=${crowd.name}`);
      await page.getByText('Showing 1–20 of 21').waitFor();
      const names = page.locator('.pet-card h2');
      expect(await names.first().textContent()).toBe('Crowd 21');
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.getByText('Showing 21–21 of 21').waitFor();
      expect(await names.allTextContents()).toEqual(['Crowd 1']);
      expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Previous page' }).click();
      await page.getByText('Showing 1–20 of 21').waitFor();
    });

    it('should delete a pet after confirmation', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Leaving', categoryId, status: 'available' });
      const page = await signedInPage('admin', `/console/pets/${id}`);
      await heading(page, 'Leaving').waitFor();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog', { name: 'Delete Leaving?' })
        .getByRole('button', { name: 'Delete pet' })
        .click();
      await heading(page, 'Pets').waitFor();
      await t.http.get(`/v1/pets/${id}`).set(t.admin).expect(404);
      await page.goBack();
      expect(new URL(page.url()).pathname).not.toBe(`/console/pets/${id}`);
    });

    it('should not delete a pet changed since it was shown, and show it as it is now', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Kept', categoryId, status: 'available' });
      const page = await signedInPage('admin', `/console/pets/${id}`);
      await heading(page, 'Kept').waitFor();
      await t.http.put(`/v1/pets/${id}`).set(t.admin).send({ name: 'Renamed' }).expect(200);

      await page.getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('dialog', { name: 'Delete Kept?' })
        .getByRole('button', { name: 'Delete pet' })
        .click();

      await page.getByRole('alert').getByText('Someone else changed this first.').waitFor();
      await heading(page, 'Renamed').waitFor();
      await screenshot(page, 'pet-detail-conflict');
      await t.http.get(`/v1/pets/${id}`).set(t.admin).expect(200);
    });
  });

  describe('users', () => {
    it('should let an admin create a user, who can then sign in without a Users page', async () => {
      const admin = await signedInPage();
      await admin.getByRole('link', { name: 'Users' }).click();
      await heading(admin, 'Users').waitFor();
      const form = admin.getByRole('form', { name: 'Create a user' });
      const create = async (username: string) => {
        await form.getByLabel('Username').fill(username);
        await form.getByLabel('Email').fill(`${username}@example.com`);
        await form.getByLabel('Password').fill('console user password');
        await form.getByRole('button', { name: 'Create user' }).click();
      };
      await create('console.clerk');
      await admin.getByText('User console.clerk created.').waitFor();
      await admin.getByRole('row', { name: /console\.clerk/ }).waitFor();
      await screenshot(admin, 'users');

      await create('console.clerk');
      await admin.locator('#field-username-error').waitFor();

      const clerk = await newPage();
      await clerk.goto('/console');
      await signIn(clerk, 'console.clerk', 'console user password');
      await heading(clerk, 'Pets').waitFor();
      expect(await clerk.getByRole('link', { name: 'Users' }).count()).toBe(0);
      await clerk.goto('/console/users');
      await clerk.getByText('Only administrators can manage users.').waitFor();
    });

    it('should change a role and disable an account', async () => {
      const member = await createUser(t);
      const admin = await signedInPage('admin', '/console/users');
      const row = admin.getByRole('row', { name: new RegExp(member.username) });
      await row.getByRole('button', { name: `Make admin ${member.username}` }).click();
      await admin.getByText(`${member.username} is now an admin.`).waitFor();
      expect(await row.getByRole('cell', { name: 'admin', exact: true }).count()).toBe(1);
      expect((await t.http.get(`/v1/users/${member.id}`).set(t.admin)).body.role).toBe('admin');

      await row.getByRole('button', { name: `Disable ${member.username}` }).click();
      await admin.getByText(`${member.username} disabled`, { exact: false }).waitFor();
      expect(await row.getByRole('cell', { name: 'Disabled' }).count()).toBe(1);
      expect((await t.http.get(`/v1/users/${member.id}`).set(t.admin)).body.userStatus).toBe(1);

      const refused = await newPage();
      await refused.goto('/console');
      await refused.getByLabel('Username').fill(member.username);
      await refused.getByLabel('Password').fill(member.password);
      await refused.getByRole('button', { name: 'Sign in', exact: true }).click();
      await refused.getByRole('alert').waitFor();
      await heading(refused, 'Sign in').waitFor();

      await row.getByRole('button', { name: `Enable ${member.username}` }).click();
      await admin.getByText(`${member.username} enabled.`).waitFor();
      expect(await row.getByRole('cell', { name: 'Active' }).count()).toBe(1);
      await refused.getByRole('button', { name: 'Sign in', exact: true }).click();
      await heading(refused, 'Pets').waitFor();
    });

    it('should hide the Users page from a plain user', async () => {
      const page = await signedInPage('user');
      expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(1);
    });
  });

  describe('on a phone, and for assistive technology', () => {
    it('should fit a 375-pixel-wide screen and pass axe WCAG 2.1 AA checks on every main page', async () => {
      const { id: categoryId } = await category();
      const id = await pet({ name: 'Pocket', categoryId, status: 'pending', breed: 'Pug' });
      const page = await signedInPage('admin', '/console', { width: 375, height: 812 });
      const pages = [
        { route: '/console/pets', title: 'Pets', name: 'phone-pets' },
        { route: `/console/pets/${id}`, title: 'Pocket', name: 'phone-pet-detail' },
        { route: `/console/pets/${id}/edit`, title: 'Edit Pocket', name: 'phone-pet-form' },
        { route: '/console/settings/api-keys', title: 'API keys', name: 'phone-api-keys' },
        { route: '/console/users', title: 'Users', name: 'phone-users' },
      ];
      await checkPages(page, pages);
      // Error messages and the confirmation dialog are checked too.
      await page.goto(`/console/pets/${id}/edit`);
      // The form is read only once its pet and categories are in (see the loop above).
      await heading(page, 'Edit Pocket').waitFor();
      await page.waitForLoadState('networkidle');
      await page.getByLabel('Name').fill('');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#field-name-error').waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.goto(`/console/pets/${id}`);
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await screenshot(page, 'phone-confirm-delete');
      await page.keyboard.press('Escape');

      await page.goto('/console');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading(page, 'Sign in').waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
    });
  });
});
