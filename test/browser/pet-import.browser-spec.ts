import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  accessibilityViolations,
  describeInBrowser,
  fitsWidth,
  heading,
  screenshot,
} from '../support/browser.js';
import { consoleInBrowser } from '../support/console-browser.js';
import type { TestApp } from '../support/test-app.js';

const HEADER = 'name,category,status,tags,age,breed';

describeInBrowser('The import page in the console: a file, its progress, counts and errors', () => {
  // Batches of one row, so that a long file is still running when Cancel is clicked.
  const c = consoleInBrowser({ PET_IMPORT_BATCH_ROWS: '1' });
  let t: TestApp;
  let dir: string;
  // A small catalogue file as a shop writes it: its second row names no known category.
  let small: string;

  beforeAll(async () => {
    t = c.t;
    const dogs = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: 'Dogs' })
      .expect(201);
    await t.http
      .post('/v1/pets')
      .set(t.admin)
      .send({ name: 'Resident', categoryId: dogs.body.id, status: 'available' })
      .expect(201);
    dir = await mkdtemp(join(tmpdir(), 'pet-import-'));
    small = join(dir, 'pets.csv');
    await writeFile(
      small,
      [
        HEADER,
        'Rex,Dogs,available,calm|vaccinated,3,Labrador',
        'Nemo,Fish,available,,1,Clownfish',
        '"Biscuit, the ""Good""",dogs,pending,,2,Beagle',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The list's total as the pets page shows it. */
  const listTotal = async (page: Page): Promise<string> => {
    await page.goto('/console/pets');
    const pager = page.getByRole('navigation', { name: 'Pages' }).locator('p');
    await pager.waitFor();
    return (await pager.textContent())!.replace(/^.* of /, '');
  };

  const count = (page: Page, label: string) =>
    page.locator('.details dt', { hasText: new RegExp(`^${label}$`) }).locator('+ dd');

  /** Fills the form and starts; the page then follows the import until it ends. */
  const start = async (page: Page, file: string, { dryRun }: { dryRun: boolean }) => {
    await page.getByLabel('File', { exact: true }).setInputFiles(file);
    await page.getByLabel('Create: every row is a new pet').check();
    await page.getByLabel(/^Dry run/).setChecked(dryRun);
    await page.getByRole('button', { name: 'Start' }).click();
  };

  it('should import a CSV file through the file input: a dry run changes nothing, then the real run', async () => {
    const page = await c.signedInPage('user', '/console/pets');
    const before = await listTotal(page);
    expect(before).toBe('1');

    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await heading(page, 'Import pets').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    await start(page, small, { dryRun: true });
    await page
      .getByRole('status')
      .getByText('Status: Finished (dry run: no pet was changed)')
      .waitFor();
    expect(page.url()).toMatch(/\/console\/pets\/import\?id=\d+$/);
    const id = /id=(\d+)$/.exec(page.url())![1];
    await heading(page, `Import ${id} (dry run)`).waitFor();
    expect(await page.getByLabel('Progress').getAttribute('value')).toBe('100');
    const counts = {
      Rows: '3',
      Valid: '2',
      Invalid: '1',
      Created: '2',
      Updated: '0',
      Unchanged: '0',
    };
    for (const [label, value] of Object.entries(counts)) {
      expect(await count(page, label).textContent()).toBe(value);
    }
    const errors = page.getByRole('table');
    expect(await errors.locator('th').allTextContents()).toEqual(['Row', 'Field', 'Message']);
    expect(await errors.locator('tbody tr').count()).toBe(1);
    const [row, field, message] = await errors.locator('tbody td').allTextContents();
    expect([row, field]).toEqual(['2', 'category']);
    expect(message).toContain('Fish');
    expect(await page.getByRole('button', { name: 'Cancel the import' }).count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    // The dry run changed nothing.
    expect(await listTotal(page)).toBe(before);

    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await start(page, small, { dryRun: false });
    await page.getByRole('status').getByText('Status: Finished', { exact: true }).waitFor();
    expect(await page.getByLabel('Progress').getAttribute('value')).toBe('100');
    expect(await count(page, 'Created').textContent()).toBe('2');
    expect(await errors.locator('tbody td').first().textContent()).toBe('2');
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'pet-import');

    await page.getByRole('link', { name: 'Go to the pets' }).click();
    await heading(page, 'Pets').waitFor();
    await page.getByRole('heading', { name: 'Biscuit, the "Good"', exact: true }).waitFor();
    expect(await listTotal(page)).toBe('3');
  });

  it('should show a refused upload as the form’s error, and cancel a running import', async () => {
    const page = await c.signedInPage('user', '/console/pets/import');
    await heading(page, 'Import pets').waitFor();
    const text = join(dir, 'pets.txt');
    await writeFile(text, 'not a catalogue\n');
    await page.getByLabel('File', { exact: true }).setInputFiles(text);
    await page.getByRole('button', { name: 'Start' }).click();
    const file = page.getByLabel('File', { exact: true });
    await page.locator('#field-file-error').waitFor();
    expect(await file.getAttribute('aria-invalid')).toBe('true');

    // One transaction a row: long enough to be running when Cancel is clicked.
    const rows = Array.from({ length: 3000 }, (_, i) => `Pup ${i},Dogs,available,,1,Mutt`);
    const long = join(dir, 'long.csv');
    await writeFile(long, [HEADER, ...rows, ''].join('\n'));
    await start(page, long, { dryRun: false });
    await page.getByRole('status').getByText('Status: Applying the rows').waitFor();
    await page.getByRole('button', { name: 'Cancel the import' }).click();
    await page.getByRole('status').getByText('Status: Cancelled').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel the import' }).count()).toBe(0);
    const created = Number(await count(page, 'Created').textContent());
    expect(created).toBeLessThan(3000);
    await page.getByRole('link', { name: 'Go to the pets' }).waitFor();
  });

  it('should fit a phone’s width and pass axe with the counts and errors shown', async () => {
    const page = await c.signedInPage('user', '/console/pets/import', { width: 390, height: 844 });
    await heading(page, 'Import pets').waitFor();
    await screenshot(page, 'phone-pet-import-form');
    expect(await fitsWidth(page)).toBe(true);
    await start(page, small, { dryRun: true });
    await page.getByRole('table').waitFor();
    await page
      .getByRole('status')
      .getByText(/^Status: Finished/)
      .waitFor();
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'phone-pet-import');
    expect(await fitsWidth(page)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
