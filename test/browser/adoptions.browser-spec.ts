import { expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { createUser, type CreatedUser } from '../support/auth.js';
import {
  accessibilityViolations,
  checkPages,
  describeInBrowser,
  fitsWidth,
  heading,
  screenshot,
} from '../support/browser.js';
import { consoleInBrowser } from '../support/console-browser.js';
import { createPet } from '../support/pets.js';

interface Adoption {
  id: number;
  status: string;
  holdExpiresAt?: string;
}

describeInBrowser('Adoptions in the console', () => {
  // Enough open adoptions per adopter for the paging test's 22.
  const c = consoleInBrowser({ ADOPTIONS_OPEN_PER_ADOPTER: '30' });

  // Named people, for the screenshots that docs/images keeps.
  const customer = (username: string) => createUser(c.t, { role: 'customer', username });

  /** Staff request `petId` for `adopter` through the API. */
  async function requestFor(adopter: CreatedUser, petId: number): Promise<Adoption> {
    const res = await c.t.http
      .post('/v1/adoptions')
      .set(c.t.user)
      .send({ petId, adopterId: adopter.id })
      .expect(201);
    return res.body as Adoption;
  }

  const adoption = async (id: number): Promise<Adoption> =>
    (await c.t.http.get(`/v1/adoptions/${id}`).set(c.t.admin).expect(200)).body as Adoption;

  async function customerPage(
    who: CreatedUser,
    route: string,
    viewport?: { width: number; height: number },
  ) {
    const page = await c.newPage(viewport);
    await page.goto(route);
    await c.signIn(page, who.username, who.password);
    return page;
  }

  const row = (page: Page, id: number) => page.locator(`table.adoptions tr[data-adoption="${id}"]`);

  /** The visible names of a row's move buttons. */
  const movesOf = async (page: Page, id: number) =>
    (await row(page, id).getByRole('button').allTextContents()).map((text) => text.trim());

  /** Opens a row's move, confirms it in its dialog and waits for the dialog to close. */
  async function move(page: Page, id: number, button: string, confirm: string) {
    await row(page, id).getByRole('button', { name: button }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: confirm, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  it('should let a customer request a pet, staff approve and complete it, and the customer see it completed', async () => {
    const adopter = await customer('ada.l');
    const petId = await createPet(c.t, { name: 'Biscuit' });

    // The customer asks, with a message, on the pet's page.
    const mine = await customerPage(adopter, `/console/pets/${petId}`);
    await heading(mine, 'Biscuit').waitFor();
    const nav = mine.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'Adoptions', exact: true }).count()).toBe(0);
    await mine.getByLabel('Message for the staff (optional)').fill('We have a garden');
    await mine.getByRole('button', { name: 'Request adoption' }).click();
    await mine
      .getByText('Adoption requested: Biscuit is held for you while staff decide.')
      .waitFor();
    await mine.getByText('An adoption is in progress:').waitFor();
    const [requested] = (
      await c.t.http.get('/v1/adoptions').query({ petId }).set(c.t.admin).expect(200)
    ).body.adoptions as Adoption[];
    expect(requested.status).toBe('requested');
    await expect(row(mine, requested.id).textContent()).resolves.toMatch(
      /requested.*Hold ends in (2 days 23 hours|3 days).*We have a garden/,
    );
    expect(await mine.getByRole('button', { name: 'Request adoption' }).count()).toBe(0);

    // Its own list: status, hold, Cancel.
    await nav.getByRole('link', { name: 'My adoptions' }).click();
    await heading(mine, 'My adoptions').waitFor();
    await row(mine, requested.id).waitFor();
    expect(await movesOf(mine, requested.id)).toEqual(['Cancel adoption']);
    await screenshot(mine, 'my-adoptions');
    // The staff queue is not for customers.
    await mine.goto('/console/adoptions');
    await mine.getByText('Only staff can see every adoption.').waitFor();

    // Staff (a plain user) find it in the queue, filtered by status, and approve it.
    const staff = await c.signedInPage('user');
    await staff
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Adoptions' })
      .click();
    await heading(staff, 'Adoptions').waitFor();
    const filter = staff.getByRole('form', { name: 'Filter adoptions' });
    await filter.getByLabel('requested').check();
    await filter.getByRole('button', { name: 'Filter' }).click();
    await staff.waitForURL(/\/console\/adoptions\?status=requested$/);
    await row(staff, requested.id).waitFor();
    expect(await movesOf(staff, requested.id)).toEqual([
      'Approve',
      'Extend hold',
      'Reject',
      'Cancel adoption',
    ]);
    await move(staff, requested.id, 'Approve', 'Approve');
    await staff.getByText(`Adoption ${requested.id} is approved.`).waitFor();
    expect(await movesOf(staff, requested.id)).toEqual([
      'Complete',
      'Extend hold',
      'Reject',
      'Cancel adoption',
    ]);
    await move(staff, requested.id, 'Complete', 'Complete adoption');
    await staff.getByText(`Adoption ${requested.id} is completed.`).waitFor();
    expect(await movesOf(staff, requested.id)).toEqual(['Record return']);
    await expect(row(staff, requested.id).textContent()).resolves.toContain(
      `Staff: ${c.t.plainUser.username}`,
    );
    const pet = await c.t.http.get(`/v1/pets/${petId}`).set(c.t.admin).expect(200);
    expect(pet.body.status).toBe('sold');
    await staff.goto('/console/adoptions');
    await row(staff, requested.id).waitFor();
    await screenshot(staff, 'adoptions-queue');

    // The customer sees it completed, with nothing left to do.
    await mine.goto('/console/my-adoptions');
    await row(mine, requested.id).getByText('completed', { exact: true }).waitFor();
    expect(await movesOf(mine, requested.id)).toEqual([]);
  });

  it('should show the pet’s adoptions to staff, explain refusals and apply a move only to the version shown', async () => {
    const adopter = await customer('grace.h');
    const petId = await createPet(c.t, { name: 'Pepper' });
    const open = await requestFor(adopter, petId);

    const staff = await c.signedInPage('user', `/console/pets/${petId}`);
    await heading(staff, 'Pepper').waitFor();
    // Held: the pet's own status moves and Delete give way to the adoption.
    await staff.getByText('Held for an adoption').waitFor();
    expect(await staff.getByRole('button', { name: /^Mark as/ }).count()).toBe(0);
    expect(await staff.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    // The edit form keeps its status too.
    await staff.getByRole('link', { name: 'Edit' }).click();
    await heading(staff, 'Edit Pepper').waitFor();
    expect(await staff.getByLabel('Status').locator('option').allTextContents()).toEqual([
      'pending',
    ]);
    await staff.goBack();
    await row(staff, open.id).waitFor();

    // Extend: hours out of range is explained under the field.
    await row(staff, open.id).getByRole('button', { name: 'Extend hold' }).click();
    const dialog = staff.getByRole('dialog');
    await dialog.getByLabel('Hours to add').fill('500');
    await dialog.getByRole('button', { name: 'Extend hold' }).click();
    await dialog.getByText('Enter 168 or less.').waitFor();
    // Someone else extends it meanwhile: the dialog's version is outdated (412).
    await c.t.http
      .post(`/v1/adoptions/${open.id}/extend`)
      .set(c.t.admin)
      .send({ hours: 1 })
      .expect(200);
    await dialog.getByLabel('Hours to add').fill('48');
    await dialog.getByRole('button', { name: 'Extend hold' }).click();
    await dialog.getByText('Someone else changed this first.', { exact: false }).waitFor();
    await screenshot(staff, 'adoption-dialog');
    // Sent again, it applies to the version now shown.
    await dialog.getByRole('button', { name: 'Extend hold' }).click();
    await dialog.waitFor({ state: 'detached' });
    const extended = await adoption(open.id);
    expect(Date.parse(extended.holdExpiresAt!) - Date.parse(open.holdExpiresAt!)).toBe(
      49 * 3_600_000,
    );

    // The adopter cancels while staff look at it: the dialog says what it is now.
    await row(staff, open.id).getByRole('button', { name: 'Approve' }).click();
    // Read: the version the move will apply to is the one before the adopter's cancel.
    await dialog.locator('form[aria-busy="false"]').waitFor();
    await c.t.http.post(`/v1/adoptions/${open.id}/cancel`).set(adopter.headers).expect(200);
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await dialog
      .getByText('This adoption is cancelled now: it can no longer be moved this way.')
      .waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await row(staff, open.id).getByText('cancelled', { exact: true }).waitFor();
    expect(await movesOf(staff, open.id)).toEqual([]);

    // A new request, rejected with a reason: the pet is available again, the reason shown.
    const second = await requestFor(adopter, petId);
    await staff.reload();
    await row(staff, second.id).getByRole('button', { name: 'Reject' }).click();
    await dialog.getByLabel('Reason (optional)').fill('No garden after all');
    await dialog.getByRole('button', { name: 'Reject', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect(row(staff, second.id).textContent()).resolves.toContain(
      `Staff: ${c.t.plainUser.username}Reason: “No garden after all”`,
    );
    await staff.getByRole('button', { name: 'Mark as pending' }).waitFor();

    // A customer asking for a pet someone else took meanwhile is told so (409).
    const late = await customer('alan.t');
    const mine = await customerPage(late, `/console/pets/${petId}`);
    await mine.getByRole('button', { name: 'Request adoption' }).waitFor();
    await requestFor(adopter, petId);
    await mine.getByRole('button', { name: 'Request adoption' }).click();
    await mine.getByText('This pet is pending now, not available.').waitFor();
  });

  it('should let staff request a pet for a customer picked by name, who then sees it in My adoptions', async () => {
    const adopter = await customer('hedy.l');
    // Found by the same letters, so that the choice is the staff's: the second option.
    const namesake = await customer('hedwig.o');
    const petId = await createPet(c.t, { name: 'Marlow' });

    const staff = await c.signedInPage('user', `/console/pets/${petId}`);
    await heading(staff, 'Marlow').waitFor();
    const form = staff.getByRole('form', { name: 'Request adoption for a customer' });
    const picker = form.getByRole('combobox', { name: 'Customer' });
    // No customer chosen: said under the field, which takes the focus; nothing is sent.
    await form.getByRole('button', { name: 'Request adoption' }).click();
    await form.getByText('Choose the customer from the list', { exact: false }).waitFor();
    await expect(picker.evaluate((input) => input === document.activeElement)).resolves.toBe(true);
    // Three letters list both, by username.
    await picker.pressSequentially('hed');
    await form.getByRole('option', { name: `hedy.l user ${adopter.id}` }).waitFor();
    expect(await form.getByRole('option').allTextContents()).toEqual([
      `hedwig.o user ${namesake.id}`,
      `hedy.l user ${adopter.id}`,
    ]);
    expect(await accessibilityViolations(staff)).toEqual([]);
    await screenshot(staff, 'staff-request-picker');
    // By keyboard: down twice, Enter chooses (and does not send the form).
    await picker.press('ArrowDown');
    await picker.press('ArrowDown');
    await picker.press('Enter');
    await form.getByText(`Chosen: hedy.l (user ${adopter.id}).`).waitFor();
    await expect(picker.inputValue()).resolves.toBe('hedy.l');
    await expect(form.getByRole('option').count()).resolves.toBe(0);
    const untouched = await c.t.http.get(`/v1/pets/${petId}`).set(c.t.admin).expect(200);
    expect(untouched.body.status).toBe('available');

    await form.getByLabel('Message (optional)').fill('Asked at the counter');
    await form.getByRole('button', { name: 'Request adoption' }).click();
    await staff
      .getByText(
        `Adoption requested for ${adopter.username}: Marlow is held for them while staff decide.`,
      )
      .waitFor();
    const [requested] = (
      await c.t.http
        .get('/v1/adoptions')
        .query({ adopterId: adopter.id })
        .set(c.t.admin)
        .expect(200)
    ).body.adoptions as Adoption[];
    await row(staff, requested.id).getByRole('link', { name: adopter.username }).waitFor();
    expect(await form.count()).toBe(0);

    // The customer finds it in My adoptions, theirs to cancel.
    const mine = await customerPage(adopter, '/console/my-adoptions');
    await heading(mine, 'My adoptions').waitFor();
    await expect(row(mine, requested.id).textContent()).resolves.toMatch(
      /Marlow.*requested.*Hold ends in (2 days 23 hours|3 days).*Asked at the counter/,
    );
    expect(await movesOf(mine, requested.id)).toEqual(['Cancel adoption']);
  });

  it('should filter the queue through the address and load older adoptions by cursor', async () => {
    const adopter = await customer('edsger.d');
    const other = await customer('barbara.l');
    const created: Adoption[] = [];
    for (let i = 0; i < 22; i += 1) {
      created.push(await requestFor(adopter, await createPet(c.t, { name: `Queued ${i}` })));
    }
    await c.t.http.post(`/v1/adoptions/${created[0].id}/approve`).set(c.t.admin).expect(200);
    const otherOne = await requestFor(other, await createPet(c.t, { name: 'Elsewhere' }));

    const staff = await c.signedInPage('admin', `/console/adoptions?adopterId=${adopter.id}`);
    const rows = staff.locator('table.adoptions > tbody > tr');
    await rows.nth(19).waitFor();
    expect(await rows.count()).toBe(20);
    expect(await row(staff, otherOne.id).count()).toBe(0);
    await staff.getByRole('button', { name: 'Load older adoptions' }).click();
    await staff.getByText('No older adoptions.').waitFor();
    expect(await rows.count()).toBe(22);
    // Focus moves to the first row added.
    expect(
      await staff.evaluate(() =>
        [...document.querySelectorAll('table.adoptions > tbody > tr')].indexOf(
          document.activeElement!,
        ),
      ),
    ).toBe(20);

    // The adopter's link filters by adopter; statuses are repeatable; Back restores.
    const filter = staff.getByRole('form', { name: 'Filter adoptions' });
    await filter.getByLabel('approved').check();
    await filter.getByLabel('completed').check();
    await filter.getByRole('button', { name: 'Filter' }).click();
    await staff.waitForURL(
      new RegExp(`/console/adoptions\\?status=approved&status=completed&adopterId=${adopter.id}$`),
    );
    await rows.nth(1).waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(1);
    await row(staff, created[0].id).waitFor();
    await staff.goBack();
    await rows.nth(19).waitFor();
    expect(await filter.getByLabel('approved').isChecked()).toBe(false);
    await row(staff, created[21].id).getByRole('link', { name: adopter.username }).click();
    await staff.waitForURL(new RegExp(`/console/adoptions\\?adopterId=${adopter.id}$`));
  });

  it('should fit a 390-pixel-wide screen and pass axe WCAG 2.1 AA checks, a move dialog open too', async () => {
    const adopter = await customer('juniper.fan');
    const petId = await createPet(c.t, { name: 'Juniper' });
    const open = await requestFor(adopter, petId);
    const phone = { width: 390, height: 844 };

    const staff = await c.signedInPage('admin', '/console', phone);
    await checkPages(staff, [
      { route: '/console/adoptions', title: 'Adoptions', name: 'phone-adoptions-queue' },
      { route: `/console/pets/${petId}`, title: 'Juniper', name: 'phone-pet-adoptions' },
    ]);
    await row(staff, open.id).getByRole('button', { name: 'Reject' }).click();
    await staff.getByRole('dialog').getByLabel('Reason (optional)').waitFor();
    expect(await fitsWidth(staff)).toBe(true);
    expect(await accessibilityViolations(staff)).toEqual([]);
    await screenshot(staff, 'phone-adoption-dialog');
    // Staff's request form, for a customer.
    const forCustomer = await createPet(c.t, { name: 'Rowan' });
    await checkPages(staff, [
      { route: `/console/pets/${forCustomer}`, title: 'Rowan', name: 'phone-staff-request' },
    ]);

    // The queue at desktop width, a few statuses of the earlier tests' adoptions.
    const desk = await c.signedInPage(
      'user',
      '/console/adoptions?status=approved&status=completed&status=rejected&status=cancelled',
    );
    await desk.locator('table.adoptions > tbody > tr').nth(3).waitFor();
    await screenshot(desk, 'adoptions-queue-statuses');

    const mine = await customerPage(adopter, '/console', phone);
    await checkPages(mine, [
      { route: '/console/my-adoptions', title: 'My adoptions', name: 'phone-my-adoptions' },
    ]);
    const available = await createPet(c.t, { name: 'Clover' });
    await checkPages(mine, [
      { route: `/console/pets/${available}`, title: 'Clover', name: 'phone-request-adoption' },
    ]);
  });
});
