import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createTestApp, type TestApp } from '../../support/test-app.js';

jest.setTimeout(180_000);

const ENTRIES = 100_000;
const INSERT_BATCH = 10_000;
// Live memory the export may hold beyond what it held before, at any point of the stream.
const RETAINED_BOUND = 32 * 1024 * 1024;

// A collection before each reading, so that only what the process still holds is measured.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const retainedHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

describe('Audit export (e2e, 100,000 entries in flat memory)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    // Only these: the start-up's logins are recorded too.
    await t.dataSource.query('TRUNCATE audit_events');
    // About 800 bytes per line: the whole export is far larger than the bound. In statements
    // of INSERT_BATCH rows, each far within the app's statement timeout on PostgreSQL.
    for (let first = 1; first <= ENTRIES; first += INSERT_BATCH) {
      await t.dataSource.query(
        `INSERT INTO audit_events (action, outcome, actor_user_id, actor_credential,
            target_type, target_id, changes, ip, request_id)
         SELECT 'category.updated', 'success', 1, 'jwt', 'category', n,
                jsonb_build_object('description',
                  jsonb_build_object('from', repeat('a', 250), 'to', repeat('b', 250))),
                '127.0.0.1', 'req-' || n
           FROM generate_series($1::int, $2::int) n`,
        [first, first + INSERT_BATCH - 1],
      );
    }
  });
  afterAll(() => t.close());

  it('should stream every entry while the memory it holds stays that of a batch', async () => {
    const baseline = retainedHeap();
    const checkpoints = new Set([10_000, 35_000, 60_000, 85_000]);
    const retained: number[] = [];
    let lines = 0;
    let bytes = 0;
    let firstId: number | undefined;
    let lastId: number | undefined;

    await new Promise<void>((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port, path: '/v1/audit-events/export', headers: t.admin },
        (res) => {
          expect(res.statusCode).toBe(200);
          let partial = '';
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            const text = partial + chunk.toString('utf8');
            const complete = text.split('\n');
            partial = complete.pop() ?? '';
            for (const line of complete) {
              const id = (JSON.parse(line) as { id: number }).id;
              firstId ??= id;
              if (lastId !== undefined && id <= lastId) reject(new Error(`out of order: ${id}`));
              lastId = id;
              lines += 1;
              if (checkpoints.has(lines)) {
                // The client stops reading: the server must wait, not buffer the rest.
                res.pause();
                setTimeout(() => {
                  retained.push(retainedHeap() - baseline);
                  res.resume();
                }, 200);
              }
            }
          });
          res.on('end', () => (partial === '' ? resolve() : reject(new Error('cut short'))));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
    });

    expect(lines).toBe(ENTRIES);
    expect(lastId! - firstId!).toBe(ENTRIES - 1);
    // Holding the export whole would exceed the bound several times over.
    expect(bytes).toBeGreaterThan(2 * RETAINED_BOUND);
    expect(retained).toHaveLength(checkpoints.size);
    expect(Math.max(...retained)).toBeLessThan(RETAINED_BOUND);
  });
});
