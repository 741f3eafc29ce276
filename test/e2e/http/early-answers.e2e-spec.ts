import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const KB = 1024;

/** Sends a request's head alone and returns all the service wrote until it closed. */
async function headOnly(port: number, lines: string[]): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write([...lines, `Host: 127.0.0.1:${port}`, '', ''].join('\r\n'));
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  await new Promise((resolve) => socket.once('close', resolve));
  return Buffer.concat(received).toString('utf8');
}

const bodyOf = (text: string): unknown => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

/** Node's client, which writes its whole body before reading; with `expect`, once 100 came. */
function nodePost(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  expectContinue: boolean,
): Promise<{ status?: number; body?: unknown; continued: boolean; errors: string[] }> {
  return new Promise((resolve) => {
    const answer = { status: undefined as number | undefined, body: undefined as unknown };
    const result = { continued: false, errors: [] as string[] };
    const request = http.request({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path,
      agent: false,
      headers: {
        ...headers,
        'Content-Type': 'application/json',
        'Content-Length': String(body.length),
        ...(expectContinue ? { Expect: '100-continue' } : {}),
      },
    });
    request.on('continue', () => {
      result.continued = true;
      request.end(body);
    });
    request.on('response', (response) => {
      answer.status = response.statusCode;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        answer.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (!result.continued && expectContinue) request.destroy();
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => result.errors.push(error.code ?? ''));
    request.on('close', () => resolve({ ...answer, ...result }));
    if (!expectContinue) request.end(body);
  });
}

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
      const answer = await nodePost(
        port,
        '/v1/categories',
        t.admin,
        Buffer.from(JSON.stringify({ name: 'Continued' })),
        true,
      );
      expect(answer).toMatchObject({ status: 201, continued: true, errors: [] });
    });

    it('should let a Node client that waits for 100 Continue read the 413 of a JSON body over 100 kB', async () => {
      const answer = await nodePost(port, '/v1/categories', t.admin, bigCategory(), true);
      expect(answer).toMatchObject({
        status: 413,
        body: { code: 'PAYLOAD_TOO_LARGE' },
        continued: false,
        errors: [],
      });
    });
  });

  it('should let a Node client that writes a JSON body over 100 kB before reading read the 413', async () => {
    const answer = await nodePost(port, '/v1/categories', t.admin, bigCategory(), false);
    expect(answer).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' }, errors: [] });
  });
});
