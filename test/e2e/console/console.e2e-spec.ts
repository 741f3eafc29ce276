import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from '../../support/errors.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

/** How the service serves the web console; the console itself is tested in test/browser. */
describe('Web console files (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({}, { signIn: false });
  });
  afterAll(async () => {
    await t.close();
  });

  const assetsOf = (page: string) =>
    [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);

  it('should serve the page without a credential, under a strict Content-Security-Policy', async () => {
    const res = await t.http.get('/console').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    const policy = Object.fromEntries(
      res.headers['content-security-policy']
        .split('; ')
        .map((directive: string) => [directive.split(' ')[0], directive]),
    );
    expect(policy).toMatchObject({
      'default-src': "default-src 'none'",
      'script-src': "script-src 'self'",
      'style-src': "style-src 'self'",
      'connect-src': "connect-src 'self'",
      'frame-ancestors': "frame-ancestors 'none'",
    });
    expect(res.text).not.toMatch(/<script>|<style|style="/);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('should answer the same page on the console own routes, for bookmarks and reloads', async () => {
    const root = await t.http.get('/console').expect(200);
    for (const route of ['/console/pets', '/console/pets/12/edit', '/console/settings/api-keys']) {
      const res = await t.http.get(route).expect(200);
      expect(res.text).toBe(root.text);
    }
  });

  it('should serve each file the page loads from /console/assets, cached for good', async () => {
    const page = (await t.http.get('/console').expect(200)).text;
    const assets = assetsOf(page);
    expect(assets.map((asset) => asset.replace(/-[A-Za-z0-9]+\./, '-HASH.')).sort()).toEqual([
      '/console/assets/icon-HASH.svg',
      '/console/assets/main-HASH.js',
      '/console/assets/styles-HASH.css',
    ]);
    const types = { js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml' };
    for (const asset of assets) {
      const res = await t.http.get(asset).expect(200);
      const extension = asset.slice(asset.lastIndexOf('.') + 1) as keyof typeof types;
      expect(res.headers['content-type']).toContain(types[extension]);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it('should answer 404 in the error body for any other file', async () => {
    for (const path of [
      '/console/assets/main.js',
      '/console/assets/index.html',
      '/console/assets/..%2F..%2Fpackage.json',
      '/console/assets/.hidden.js',
    ]) {
      expectError(await t.http.get(path), 404, 'NOT_FOUND');
    }
  });

  it('should answer 405 with Allow to other methods', async () => {
    const res = await t.http.post('/console/pets').set('Content-Type', 'application/json').send({});
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});
