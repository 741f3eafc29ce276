import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import { MAX_IMPORT_BYTES } from '../../../src/common/contract-limits.js';
import { bodyOf, headOnly, nodePost } from '../../support/node-client.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

jest.setTimeout(60_000);

const BOUNDARY = 'import-size-boundary';
// The limit is the contract's, not a setting: the over-size body is announced, and sent
// once, just past it.
const REFUSAL = {
  code: 'PAYLOAD_TOO_LARGE',
  message: `Import files are limited to ${MAX_IMPORT_BYTES} bytes (50 MB)`,
  details: { maxBytes: MAX_IMPORT_BYTES },
  requestId: expect.any(String),
};

/** The import form with `file` as a CSV. */
function form(file: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="mode"\r\n\r\ncreate\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="pets.csv"\r\n` +
        'Content-Type: text/csv\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

describe('Import files refused for their size (e2e)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  const storedImports = async () => {
    const [{ count }] = await t.dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM pet_imports',
    );
    return count;
  };

  it('should answer 413 PAYLOAD_TOO_LARGE before 100 Continue to a body announced over 50 MB', async () => {
    const text = await headOnly(port, [
      'POST /v1/pets/imports HTTP/1.1',
      ...Object.entries(t.user).map(([name, value]) => `${name}: ${value}`),
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      `Content-Length: ${MAX_IMPORT_BYTES + 1024 * 1024}`,
      'Expect: 100-continue',
    ]);

    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).not.toContain('100 Continue');
    expect(bodyOf(text)).toEqual(REFUSAL);
  });

  it('should answer 413 PAYLOAD_TOO_LARGE to a file one byte over 50 MB, and store nothing', async () => {
    const before = await storedImports();
    const csv = Buffer.alloc(MAX_IMPORT_BYTES + 1, 'a');
    csv.write('name\n');

    const answer = await nodePost(
      port,
      '/v1/pets/imports',
      { ...t.user, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
      form(csv),
    );

    expect(answer).toMatchObject({ status: 413, body: REFUSAL, errors: [] });
    expect(await storedImports()).toBe(before);
  });
});
