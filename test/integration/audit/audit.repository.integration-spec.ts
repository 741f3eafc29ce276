import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { AuditRepository, type NewAuditEntry } from '../../../src/audit/audit.repository.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

const entry = (fields: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  action: 'category.created',
  outcome: 'success',
  actorUserId: null,
  actorUsername: null,
  actorCredential: 'jwt',
  actorApiKeyPrefix: null,
  targetType: 'category',
  targetId: 1,
  changes: null,
  ip: '127.0.0.1',
  userAgent: null,
  requestId: 'req',
  clientRequestId: null,
  ...fields,
});

describe(AuditRepository.name, () => {
  let harness: RepositoryHarness;
  let sut: AuditRepository;
  let aliceId: number;

  beforeAll(async () => {
    harness = await createRepositoryHarness([AuditRepository]);
    sut = harness.get(AuditRepository);
    const [alice] = await harness.query<{ id: number }>(
      `INSERT INTO users (username, email, password_hash) VALUES ('alice', 'a@example.com', 'x')
       RETURNING id`,
    );
    aliceId = alice.id;
  });
  afterAll(async () => {
    await harness.close();
  });
  beforeEach(async () => {
    await harness.query('TRUNCATE audit_events');
  });

  /** Runs the repository's INSERT of `entries` in the current transaction. */
  const insertNow = async (...entries: NewAuditEntry[]) => {
    const { sql, params } = sut.insertStatement(entries);
    await harness.query(sql, params);
  };
  const insert = (...entries: NewAuditEntry[]) => harness.transaction(() => insertNow(...entries));
  const at = (id: number, time: string) =>
    harness.query('UPDATE audit_events SET occurred_at = $2 WHERE id = $1', [id, time]);

  describe('insert', () => {
    it("should keep the actor's username as it is when the entry is written, unless one is given", async () => {
      await insert(entry({ actorUserId: aliceId }));
      await insert(entry({ actorUserId: aliceId, actorUsername: 'tried-this' }));
      await insert(entry({ actorUserId: 999_999 }));
      await harness.query(`UPDATE users SET username = 'alice2' WHERE id = $1`, [aliceId]);

      const rows = await sut.findPage({}, 10);
      expect(rows.map((row) => row.actorUsername)).toEqual([null, 'tried-this', 'alice']);
    });

    it('should write many entries in one statement, in order, each with its own fields', async () => {
      const [alice] = await harness.query<{ username: string }>(
        'SELECT username FROM users WHERE id = $1',
        [aliceId],
      );
      await insert(
        entry({ action: 'category.created', actorUserId: aliceId, targetId: 1 }),
        entry({ action: 'category.updated', changes: { name: { from: 'a', to: 'b' } } }),
        entry({ action: 'category.deleted', actorUsername: 'bob', ip: null, targetId: null }),
      );

      const rows = (await sut.findPage({}, 10)).reverse();
      expect(rows.map((row) => [row.action, row.actorUsername, row.targetId, row.changes])).toEqual(
        [
          ['category.created', alice.username, 1, null],
          ['category.updated', null, 1, { name: { from: 'a', to: 'b' } }],
          ['category.deleted', 'bob', null, null],
        ],
      );
      expect(rows[2].ip).toBeNull();
    });

    it('should roll back with the transaction', async () => {
      await expect(
        harness.transaction(async () => {
          await insertNow(entry({ action: 'category.deleted' }));
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');

      expect(await sut.findPage({}, 10)).toEqual([]);
    });

    it('should store changes as JSON and read them back, ids as numbers', async () => {
      const changes = { name: { from: null, to: 'Dogs' }, tags: { from: ['a'], to: [] } };
      await insert(entry({ changes, targetId: 2 ** 40 }));

      const [row] = await sut.findPage({}, 1);
      expect(row).toEqual({
        ...entry({ changes, targetId: 2 ** 40 }),
        id: expect.any(Number),
        occurredAt: expect.any(Date),
      });
    });
  });

  describe('findPage', () => {
    it('should combine every filter, newest first, below the cursor, up to the limit', async () => {
      for (let i = 1; i <= 6; i += 1) {
        await insert(
          entry({
            action: i % 2 === 0 ? 'category.updated' : 'category.created',
            actorUserId: i <= 3 ? aliceId : null,
            targetId: i % 3,
          }),
        );
      }
      const ids = (await sut.findPage({}, 10)).map((row) => row.id);
      for (const [i, id] of [...ids].reverse().entries()) {
        await at(id, `2026-03-0${i + 1}T00:00:00Z`);
      }
      const page = async (...args: Parameters<AuditRepository['findPage']>) =>
        (await sut.findPage(...args)).map((row) => ids.length - ids.indexOf(row.id));

      expect(await page({}, 10)).toEqual([6, 5, 4, 3, 2, 1]);
      expect(await page({ action: 'category.updated' }, 10)).toEqual([6, 4, 2]);
      expect(await page({ actorId: aliceId }, 10)).toEqual([3, 2, 1]);
      expect(await page({ targetType: 'category', targetId: 0 }, 10)).toEqual([6, 3]);
      expect(await page({ targetType: 'pet' }, 10)).toEqual([]);
      expect(
        await page(
          { since: new Date('2026-03-02T00:00:00Z'), until: new Date('2026-03-05T00:00:00Z') },
          10,
        ),
      ).toEqual([4, 3, 2]);
      expect(await page({ action: 'category.created', actorId: aliceId }, 10)).toEqual([3, 1]);
      expect(await page({}, 2, ids[1])).toEqual([4, 3]);
    });
  });

  describe('findBatch', () => {
    it('should read the range oldest first, after the id given', async () => {
      for (let i = 0; i < 5; i += 1) await insert(entry({ targetId: i + 1 }));
      const rows = await sut.findBatch({}, 0, 10);
      await at(rows[0].id, '2020-01-01T00:00:00Z');

      const targets = async (...args: Parameters<AuditRepository['findBatch']>) =>
        (await sut.findBatch(...args)).map((row) => row.targetId);
      expect(await targets({}, 0, 3)).toEqual([1, 2, 3]);
      expect(await targets({}, rows[2].id, 3)).toEqual([4, 5]);
      expect(await targets({ until: new Date('2021-01-01T00:00:00Z') }, 0, 10)).toEqual([1]);
      expect(await targets({ since: new Date('2021-01-01T00:00:00Z') }, 0, 10)).toEqual([
        2, 3, 4, 5,
      ]);
    });
  });

  describe('deleteOlderThan', () => {
    it('should delete at most the limit, only entries before the time', async () => {
      for (let i = 0; i < 5; i += 1) await insert(entry());
      const rows = await sut.findBatch({}, 0, 10);
      for (const row of rows.slice(0, 3)) await at(row.id, '2020-01-01T00:00:00Z');
      const before = new Date('2021-01-01T00:00:00Z');

      expect(await sut.deleteOlderThan(before, 2)).toBe(2);
      expect(await sut.deleteOlderThan(before, 2)).toBe(1);
      expect(await sut.deleteOlderThan(before, 2)).toBe(0);
      expect((await sut.findBatch({}, 0, 10)).map((row) => row.id)).toEqual(
        rows.slice(3).map((row) => row.id),
      );
    });
  });

  describe('countLoginsPerDay', () => {
    it('should count successes and failures of auth.login per UTC day, from the time given', async () => {
      const login = async (time: string, outcome: 'success' | 'failure') => {
        await insert(entry({ action: 'auth.login', outcome }));
        const [row] = await sut.findPage({}, 1);
        await at(row.id, time);
      };
      await login('2026-03-01T23:59:59.999Z', 'success');
      await login('2026-03-02T00:00:00.000+01:00', 'failure');
      await login('2026-03-02T00:00:00.000Z', 'success');
      await login('2026-03-02T23:00:00.000Z', 'failure');
      await login('2026-02-28T12:00:00.000Z', 'success');
      await insert(entry({ action: 'auth.logout' }));

      const counts = await sut.countLoginsPerDay(new Date('2026-03-01T00:00:00Z'));
      expect([...counts].sort((a, b) => a.date.localeCompare(b.date))).toEqual([
        { date: '2026-03-01', logins: 1, failedLogins: 1 },
        { date: '2026-03-02', logins: 1, failedLogins: 1 },
      ]);
    });
  });
});
