import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { bodyOf, headOnly, nodePost } from '../../support/node-client.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const KB = 1024;

describe('Answers given before the request body (e2e)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /** A category posted by Node's client; with `continued`, it sends the body once 100 Continue came. */
  const postCategory = (body: Buffer, continued: boolean) =>
    nodePost(port, '/v1/categories', { ...t.admin, 'Content-Type': 'application/json' }, body, {
      expect: continued,
      wait: continued,
    });
  const bigCategory = () =>
    Buffer.from(JSON.stringify({ name: 'Big', description: 'x'.repeat(200 * KB) }));

  describe('with Expect: 100-continue', () => {
    it('should answer an announced JSON body over 100 kB 413 before 100 Continue', async () => {
      const text = await headOnly(port, [
        'POST /v1/categories HTTP/1.1',
        ...Object.entries(t.admin).map(([name, value]) => `${name}: ${value}`),
        'Content-Type: application/json',
        `Content-Length: ${200 * KB}`,
        'Expect: 100-continue',
      ]);
      expect(text).toMatch(/^HTTP\/1\.1 413 /);
      expect(text).not.toContain('100 Continue');
      expect(bodyOf(text)).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        requestId: expect.any(String),
      });
    });

    it('should answer an upload without credentials 401 before 100 Continue', async () => {
      const text = await headOnly(port, [
        'POST /v1/pets/1/upload-image HTTP/1.1',
        'Content-Type: multipart/form-data; boundary=b',
        `Content-Length: ${100 * KB}`,
        'Expect: 100-continue',
      ]);
      expect(text).toMatch(/^HTTP\/1\.1 401 /);
      expect(text).not.toContain('100 Continue');
      expect(bodyOf(text)).toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
    });

    it('should send 100 Continue for a JSON body within the limit and take it', async () => {
      const answer = await postCategory(Buffer.from(JSON.stringify({ name: 'Continued' })), true);
      expect(answer).toMatchObject({ status: 201, continued: true, errors: [] });
    });

    it('should let a Node client that waits for 100 Continue read the 413 of a JSON body over 100 kB', async () => {
      const answer = await postCategory(bigCategory(), true);
      expect(answer).toMatchObject({
        status: 413,
        body: { code: 'PAYLOAD_TOO_LARGE' },
        continued: false,
        errors: [],
      });
    });
  });

  it('should let a Node client that writes a JSON body over 100 kB before reading read the 413', async () => {
    const answer = await postCategory(bigCategory(), false);
    expect(answer).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' }, errors: [] });
  });
});
