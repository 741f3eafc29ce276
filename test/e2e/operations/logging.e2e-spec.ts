import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { AppProcess } from '../../support/app-process.js';
import { waitFor } from '../../support/wait.js';

// Credentials a caller might send, each of which must never reach a log line.
const SECRETS = {
  bearer: 'eyJhbGciOiJIUzI1NiJ9.bearer-secret-3f9a.sig',
  apiKey: 'pk_live_SecretApiKeyValue0123456789abcdEF12ab',
  cookie: 'session-cookie-secret-77c1',
  password: 'hunter2-password-secret',
  token: 'body-token-secret-51de',
  key: 'body-key-secret-0b3e',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('Logs of the built service (e2e)', () => {
  it('should write JSON lines with request id, route, status and duration, and never a credential', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'petstore-logs-'));
    try {
      // The embedded database: this test needs no PostgreSQL server.
      const app = await AppProcess.start({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      // Credentials that are refused must not be logged either.
      const refused = await fetch(`${app.url}/v1/categories`, {
        headers: {
          authorization: `Bearer ${SECRETS.bearer}`,
          'x-api-key': SECRETS.apiKey,
          'x-request-id': 'log-test-refused',
        },
      });
      expect(refused.status).toBe(401);
      // app.fetch() adds the admin's own bearer token.
      const headers = { cookie: `session=${SECRETS.cookie}`, 'content-type': 'application/json' };
      const write = await app.fetch(`/v1/categories`, {
        method: 'POST',
        headers: { ...headers, 'x-request-id': 'log-test-write' },
        body: JSON.stringify({
          name: 'Logged',
          password: SECRETS.password,
          token: SECRETS.token,
          key: SECRETS.key,
        }),
      });
      expect(write.status).toBe(400);
      const read = await app.fetch(`/v1/categories/424242`, {
        headers: { ...headers, 'x-request-id': 'log-test-read' },
      });
      expect(read.status).toBe(404);
      // Written while the service runs, not held until it stops.
      await waitFor(() =>
        Promise.resolve(app.logs().some((line) => line.clientRequestId === 'log-test-read')),
      );
      // SIGINT (Ctrl-C) shuts down like SIGTERM, embedded database included.
      app.signal('SIGINT');
      expect(await app.exitCode()).toBe(0);

      const lines = app.lines.filter((line) => line.trim() !== '');
      expect(lines.filter((line) => !isJson(line))).toEqual([]);
      const logs = app.logs();
      expect(logs.find((l) => l.clientRequestId === 'log-test-read')).toEqual({
        level: 'info',
        time: expect.any(String),
        service: 'petstore',
        requestId: expect.stringMatching(UUID),
        clientRequestId: 'log-test-read',
        method: 'GET',
        route: '/v1/categories/:id',
        path: '/v1/categories/424242',
        status: 404,
        durationMs: expect.any(Number),
        ip: '127.0.0.1',
        userId: expect.any(Number),
        msg: 'request completed',
      });
      expect(logs.find((l) => l.clientRequestId === 'log-test-refused')).toMatchObject({
        route: '/v1/categories',
        status: 401,
      });
      expect(logs.find((l) => l.clientRequestId === 'log-test-write')).toMatchObject({
        method: 'POST',
        route: '/v1/categories',
        status: 400,
      });
      expect(logs).toContainEqual(expect.objectContaining({ context: 'NestApplication' }));
      const output = lines.join('\n');
      for (const secret of Object.values(SECRETS)) expect(output).not.toContain(secret);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
