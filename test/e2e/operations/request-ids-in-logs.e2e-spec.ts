import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { refuseInserts } from '../../support/refused-inserts.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';
import { testLogs, type LogLine } from '../../support/test-logs.js';
import { waitFor } from '../../support/wait.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The logs and the audit log name a request by the same two ids: `requestId`, the service's
 * own, and `clientRequestId`, the caller's X-Request-Id; so an audit entry is found in the
 * logs by an id no caller chose.
 */
describe('Request ids in the logs (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ LOG_LEVEL: 'info' });
  });
  afterAll(() => t.close());
  // At info, every request has its line: the ones a test does not assert on are let go.
  afterEach(() => {
    testLogs.untaken();
  });

  /** The one line of a POST /v1/categories that `match` picks, once it is written. */
  const requestLine = async (match: (line: LogLine) => boolean): Promise<LogLine> => {
    const lines: LogLine[] = [];
    const isLine = (line: LogLine) =>
      line.msg === 'request completed' && line.route === '/v1/categories' && match(line);
    await waitFor(() => {
      lines.push(...testLogs.take(isLine));
      return Promise.resolve(lines.length > 0);
    });
    expect(lines).toHaveLength(1);
    return lines[0];
  };
  const auditEntries = async (): Promise<Record<string, unknown>[]> => {
    const res = await t.http
      .get('/v1/audit-events?limit=100&action=category.created')
      .set(t.admin)
      .expect(200);
    return res.body.auditEvents as Record<string, unknown>[];
  };

  it("should log the audit entry's requestId, with a caller's X-Request-Id beside it as clientRequestId", async () => {
    const res = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .set('X-Request-Id', 'log-audit-caller.1')
      .send({ name: 'Joined by request id' })
      .expect(201);
    // The wire echoes the caller's id (contract section 1).
    expect(res.headers['x-request-id']).toBe('log-audit-caller.1');

    const line = await requestLine((l) => l.clientRequestId === 'log-audit-caller.1');
    const entry = (await auditEntries()).find((e) => e.clientRequestId === 'log-audit-caller.1');
    expect(entry?.requestId).toEqual(expect.stringMatching(UUID));
    expect(line).toMatchObject({
      status: 201,
      requestId: entry?.requestId,
      clientRequestId: 'log-audit-caller.1',
    });
  });

  it('should carry both ids on the lines written while the request is served', async () => {
    const acceptEntries = await refuseInserts(t.dataSource, 'audit_events');
    try {
      await t.http
        .post('/v1/categories')
        .set(t.admin)
        .set('X-Request-Id', 'log-audit-caller.2')
        .send({ name: 'Failed with a caller id' })
        .expect(500);
    } finally {
      await acceptEntries();
    }
    const lines: LogLine[] = [];
    const ofCaller = (line: LogLine) => line.clientRequestId === 'log-audit-caller.2';
    await waitFor(() => {
      lines.push(...testLogs.take(ofCaller));
      return Promise.resolve(lines.length >= 2);
    });
    const [failure, request] = lines;
    expect(failure).toMatchObject({
      context: 'Errors',
      requestId: expect.stringMatching(UUID),
      msg: `POST /v1/categories failed [requestId=${failure.requestId as string} clientRequestId=log-audit-caller.2]`,
    });
    expect(request).toMatchObject({ msg: 'request failed', requestId: failure.requestId });
  });

  it("should log only the service's own id when the caller sends none", async () => {
    const res = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: 'Joined without a caller id' })
      .expect(201);
    const ownId = res.headers['x-request-id'];
    expect(ownId).toMatch(UUID);

    const line = await requestLine((l) => l.requestId === ownId);
    expect(line).not.toHaveProperty('clientRequestId');
    const entry = (await auditEntries()).find((e) => e.requestId === ownId);
    expect(entry).toBeDefined();
  });
});
