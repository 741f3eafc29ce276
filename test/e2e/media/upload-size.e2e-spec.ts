import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jpegImage } from '../../support/images.js';
import {
  bodyOf,
  headOnly,
  nodePost,
  type NodeAnswer,
  type NodePostOptions,
} from '../../support/node-client.js';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { filesUnder } from '../../support/uploads.js';

jest.setTimeout(60_000);

const MB = 1024 * 1024;
const BOUNDARY = 'upload-size-boundary';

/** A multipart form holding `image` as the `image` file part. */
function form(image: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="photo.jpg"\r\n` +
        'Content-Type: image/jpeg\r\n\r\n',
    ),
    image,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** An upload by Node's own client (nodePost). */
const nodeUpload = (
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  options?: NodePostOptions,
) =>
  nodePost(
    port,
    path,
    { ...headers, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
    body,
    options,
  );

function curl(args: string[]): Promise<{ exitCode: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['--silent', '--show-error', ...args], (error, stdout) =>
      resolve({ exitCode: error ? Number(error.code) : 0, stdout }),
    );
  });
}

describe('Uploads refused for their size (e2e)', () => {
  let t: TestApp;
  let mediaDir: string;
  let port: number;
  let auth: Record<string, string>;
  let tooLarge: Buffer;

  const uploadPath = async () => `/v1/pets/${await createPet(t)}/upload-image`;

  function expectTooLarge(answer: NodeAnswer) {
    expect(answer).toMatchObject({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE', requestId: expect.any(String) },
      errors: [],
    });
  }

  beforeAll(async () => {
    mediaDir = await mkdtemp(join(tmpdir(), 'petstore-upload-size-'));
    t = await createTestApp({ MEDIA_DIR: mediaDir });
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    auth = t.user;
    tooLarge = form(Buffer.alloc(6 * MB, 1));
  });
  afterAll(async () => {
    await t.close();
    await rm(mediaDir, { recursive: true, force: true });
  });

  describe('with Expect: 100-continue', () => {
    it('should answer 413 before 100 Continue when the announced body is over the limit', async () => {
      const text = await headOnly(port, [
        `POST ${await uploadPath()} HTTP/1.1`,
        ...Object.entries(auth).map(([name, value]) => `${name}: ${value}`),
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
        `Content-Length: ${6 * MB}`,
        'Expect: 100-continue',
      ]);

      expect(text).toMatch(/^HTTP\/1\.1 413 /);
      expect(text).not.toContain('100 Continue');
      expect(text).toMatch(/\r\nconnection: close\r\n/i);
      expect(bodyOf(text)).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        details: { maxBytes: 5 * MB },
        requestId: expect.any(String),
      });
    });

    it('should let a Node client that waits for 100 Continue read the 413, the body never sent', async () => {
      const answer = await nodeUpload(port, await uploadPath(), auth, tooLarge, {
        expect: true,
        wait: true,
      });
      expectTooLarge(answer);
      expect(answer.continued).toBe(false);
    });

    it('should let a Node client that sends its body without waiting read the 413', async () => {
      for (let i = 0; i < 3; i += 1) {
        expectTooLarge(
          await nodeUpload(port, await uploadPath(), auth, tooLarge, { expect: true }),
        );
      }
    });

    it('should send 100 Continue and store an upload within the limit', async () => {
      const before = await filesUnder(mediaDir);
      const answer = await nodeUpload(
        port,
        await uploadPath(),
        auth,
        form(await jpegImage(64, 48)),
        {
          expect: true,
          wait: true,
        },
      );
      expect(answer).toMatchObject({ status: 201, continued: true, errors: [] });
      expect((await filesUnder(mediaDir)).length).toBe(before.length + 2);
    });
  });

  describe('without Expect', () => {
    it('should let a Node client that writes 6 MB before reading read the 413', async () => {
      for (let i = 0; i < 3; i += 1) {
        expectTooLarge(await nodeUpload(port, await uploadPath(), auth, tooLarge));
      }
    });

    it('should let a Node client read the 413 of a chunked body found too large as it arrives', async () => {
      expectTooLarge(await nodeUpload(port, await uploadPath(), auth, tooLarge, { chunked: true }));
    });

    it('should stop reading a refused chunked body past the bound and close the connection', async () => {
      const path = await uploadPath();
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      const asChunk = (data: Buffer) =>
        Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
      socket.write(
        [
          `POST ${path} HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          ...Object.entries(auth).map(([name, value]) => `${name}: ${value}`),
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
          'Transfer-Encoding: chunked',
          '',
          '',
        ].join('\r\n'),
      );
      // The image part's head, then an image that never ends.
      const whole = form(Buffer.alloc(0));
      socket.write(asChunk(whole.subarray(0, whole.indexOf('\r\n--', 2))));
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      const chunk = asChunk(Buffer.alloc(MB, 1));
      let sent = 0;
      let open = true;
      void closed.then(() => (open = false));
      while (open && sent < 200 * MB) {
        if (!socket.write(chunk)) {
          await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
        }
        sent += MB;
      }
      await closed;

      expect(Buffer.concat(received).toString('utf8')).toMatch(/^HTTP\/1\.1 413 /);
      expect(sent).toBeLessThan(100 * MB);
    });
  });

  const withCurl = existsSync('/usr/bin/curl') ? describe : describe.skip;
  withCurl('curl', () => {
    let file: string;
    beforeAll(async () => {
      file = join(mediaDir, 'too-large.jpg');
      await writeFile(file, Buffer.alloc(6 * MB, 1));
    });

    it.each([
      ['with Expect: 100-continue', 'Expect: 100-continue'],
      ['without Expect', 'Expect:'],
    ])('should read the 413 of a 6 MB upload %s', async (_, expectHeader) => {
      const { exitCode, stdout } = await curl([
        ...Object.entries(auth).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
        '-H',
        expectHeader,
        '-F',
        `image=@${file};type=image/jpeg`,
        '-w',
        '\n%{http_code}',
        `http://127.0.0.1:${port}${await uploadPath()}`,
      ]);
      expect(exitCode).toBe(0);
      const [body, status] = stdout.split('\n');
      expect(status).toBe('413');
      expect(JSON.parse(body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    });
  });
});
