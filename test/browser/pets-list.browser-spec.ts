import { beforeAll, expect, it } from '@jest/globals';
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
import { jpegImage } from '../support/images.js';
import type { TestApp } from '../support/test-app.js';
import { uploadImage } from '../support/uploads.js';

describeInBrowser('The pet list in the console: cards, search highlights, phone width', () => {
  const c = consoleInBrowser();
  let t: TestApp;
  let goldieThumbnail: string;

  // One catalogue for every test, made through the API: a photo, breeds, ages, tags, and a
  // name that looks like HTML.
  beforeAll(async () => {
    t = c.t;
    const category = async (name: string) =>
      (await t.http.post('/v1/categories').set(t.admin).send({ name }).expect(201)).body.id;
    const dogs = await category('Dogs');
    const cats = await category('Cats');
    const pet = async (fields: Record<string, unknown>) =>
      (await t.http.post('/v1/pets').set(t.admin).send(fields).expect(201)).body.id;
    await pet({
      name: 'Shadow',
      categoryId: dogs,
      status: 'pending',
      breed: 'Labrador',
      age: 6,
      tags: ['senior', 'calm'],
    });
    await pet({ name: 'Biscuit', categoryId: dogs, status: 'available', breed: 'Beagle', age: 1 });
    await pet({
      name: '<b>Bold</b> & "Quoted"',
      categoryId: cats,
      status: 'sold',
      breed: 'Maine Coon',
      age: 9,
    });
    await pet({
      name: 'Whiskers',
      categoryId: cats,
      status: 'available',
      breed: 'Siamese',
      age: 0,
      tags: ['indoor', 'playful', 'shy', 'neutered', 'microchipped', 'good-with-kids'],
      description: 'Playing with string all day, then asleep in the sun.',
    });
    const goldie = await pet({
      name: 'Goldie',
      categoryId: dogs,
      status: 'available',
      breed: 'Labrador Retriever',
      age: 2,
      tags: ['calm', 'friendly', 'vaccinated', 'house-trained', 'energetic', 'hypoallergenic'],
      description: 'A gentle puppy who loves long walks on the beach and swimming after sticks.',
    });
    await uploadImage(t, goldie, await jpegImage(640, 480)).expect(201);
    const images = (await t.http.get(`/v1/pets/${goldie}/images`).set(t.admin).expect(200)).body
      .images as { thumbnailUrl: string }[];
    goldieThumbnail = images[0].thumbnailUrl;
  });

  const card = (page: Page, name: string) =>
    page.locator('.pet-card').filter({ has: page.getByRole('heading', { name, exact: true }) });
  const marks = (page: Page, name: string) => card(page, name).locator('mark').allTextContents();

  it('should show each pet’s photo, breed, age and tags on its card', async () => {
    const page = await c.signedInPage('admin', '/console/pets');
    await heading(page, 'Pets').waitFor();
    const goldie = card(page, 'Goldie');
    await goldie.locator('img').waitFor();
    expect(await goldie.locator('img').getAttribute('src')).toBe(goldieThumbnail);
    expect(await goldie.getByText('Labrador Retriever · 2 years old').count()).toBe(1);
    expect(
      await goldie.getByRole('list', { name: 'Tags' }).getByRole('listitem').allTextContents(),
    ).toEqual(['calm', 'energetic', 'friendly', 'house-trained', 'hypoallergenic', 'vaccinated']);
    expect(await card(page, 'Whiskers').getByText('Siamese · under a year old').count()).toBe(1);
    expect(await card(page, 'Biscuit').getByText('Beagle · 1 year old').count()).toBe(1);
    // Without a search, nothing is marked.
    expect(await page.locator('.pet-card mark').count()).toBe(0);
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'pets-cards');
  });

  it('should mark the words a search matched, in the name, breed, tags and description', async () => {
    const page = await c.signedInPage('admin', '/console/pets?q=puppies+labrador+-senior');
    await heading(page, 'Pets').waitFor();
    await card(page, 'Goldie').waitFor();
    expect(await page.locator('.pet-card h2').allTextContents()).toEqual(['Goldie']);
    // "puppies" found "puppy" in the description, which the card then quotes.
    expect(await marks(page, 'Goldie')).toEqual(['Labrador', 'puppy']);
    expect(await card(page, 'Goldie').locator('.match-excerpt').textContent()).toContain(
      'A gentle puppy who loves',
    );
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'pets-search');

    await page.goto('/console/pets?q=friendly');
    await card(page, 'Goldie').getByRole('list', { name: 'Tags' }).locator('mark').waitFor();
    expect(await marks(page, 'Goldie')).toEqual(['friendly']);

    // A typo stands for the name or breed word spelt most like it: that word is marked.
    await page.goto('/console/pets?q=labrdor');
    await card(page, 'Shadow').locator('mark').first().waitFor();
    expect(await marks(page, 'Shadow')).toEqual(['Labrador']);
    expect(await marks(page, 'Goldie')).toEqual(['Labrador']);

    // The pet's text stays text: no element is made of it.
    await page.goto('/console/pets?q=bold');
    const bold = card(page, '<b>Bold</b> & "Quoted"');
    await bold.locator('mark').waitFor();
    expect(await marks(page, '<b>Bold</b> & "Quoted"')).toEqual(['Bold']);
    expect(await bold.locator('h2 b').count()).toBe(0);
  });

  it('should fold the filters at phone width, so that the first pet shows without scrolling', async () => {
    // A common phone's screen (390 × 844 CSS pixels).
    const viewport = { width: 390, height: 844 };
    const page = await c.signedInPage('admin', '/console/pets', viewport);
    await heading(page, 'Pets').waitFor();
    const first = page.locator('.pet-card').first();
    await first.locator('img').waitFor();
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'phone-pets-cards');
    // Its photo and name are on the screen as the page opens.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    for (const part of [first.locator('img'), first.getByRole('heading')]) {
      const box = await part.boundingBox();
      expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height);
    }
    expect(await fitsWidth(page)).toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);

    // The folded filters open, work, and say what is set while folded.
    await page.getByText('More filters').click();
    await page.getByLabel('Status').selectOption('available');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('Showing 1–3 of 3').waitFor();
    expect(await page.locator('.filter-more summary').textContent()).toBe('More filters (1 set)');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('should download the export of the current filters, as CSV and as NDJSON', async () => {
    const page = await c.signedInPage('admin', '/console/pets?category=Dogs&status=available');
    await heading(page, 'Pets').waitFor();
    await page.getByText('Showing 1–2 of 2').waitFor();
    const downloaded = async (button: string) => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: button }).click(),
      ]);
      return {
        name: download.suggestedFilename(),
        text: await readFile(await download.path(), 'utf8'),
      };
    };

    const csv = await downloaded('Export CSV');
    expect(csv.name).toMatch(/^pets-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = csv.text.trimEnd().split('\n');
    expect(rows[0]).toBe('id,name,category,status,tags,photoUrls,age,breed,description,externalId');
    expect(rows.slice(1).map((row) => row.split(',')[1])).toEqual(['Goldie', 'Biscuit']);

    const ndjson = await downloaded('Export NDJSON');
    expect(ndjson.name).toMatch(/^pets-\d{4}-\d{2}-\d{2}\.ndjson$/);
    const pets = ndjson.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; status: string });
    expect(pets.map((pet) => [pet.name, pet.status])).toEqual([
      ['Goldie', 'available'],
      ['Biscuit', 'available'],
    ]);
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
