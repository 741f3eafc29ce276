import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { SessionsRepository } from '../../../src/auth/sessions/sessions.repository.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';
import { waitForLockWaiters } from '../../support/wait.js';

const TTL_SECONDS = 3600;

let hashes = 0;
/** A distinct 64-character hash, as SHA-256 hex would be. */
const newHash = () => (hashes += 1).toString(16).padStart(64, '0');

describe(SessionsRepository.name, () => {
  let harness: RepositoryHarness;
  let sut: SessionsRepository;
  let userId: number;
  let otherUserId: number;

  beforeAll(async () => {
    harness = await createRepositoryHarness([SessionsRepository]);
    sut = harness.get(SessionsRepository);
    const insertUser = async (name: string) => {
      const [row] = await harness.query<{ id: number }>(
        `INSERT INTO users (username, email, password_hash) VALUES ($1, $2, 'x') RETURNING id`,
        [name, `${name}@example.com`],
      );
      return row.id;
    };
    userId = await insertUser('alice');
    otherUserId = await insertUser('bob');
  });
  afterAll(async () => {
    await harness.close();
  });

  async function start(owner = userId): Promise<{ id: number; tokenHash: string }> {
    const tokenHash = newHash();
    const id = await sut.insert({
      userId: owner,
      tokenHash,
      ttlSeconds: TTL_SECONDS,
      userAgent: 'agent',
      ip: '127.0.0.1',
    });
    return { id, tokenHash };
  }

  const revokedAt = async (id: number) =>
    (
      await harness.query<{ revokedAt: Date | null }>(
        `SELECT revoked_at AS "revokedAt" FROM sessions WHERE id = $1`,
        [id],
      )
    )[0].revokedAt;

  describe('rotate', () => {
    it('should spend the current token for the next, renew the expiry and keep the spent one', async () => {
      const session = await start();
      await harness.query(
        `UPDATE sessions SET expires_at = now() + interval '1 minute',
                             last_used_at = now() - interval '1 day' WHERE id = $1`,
        [session.id],
      );
      const next = newHash();

      expect(await sut.rotate(session.tokenHash, next, TTL_SECONDS)).toEqual({
        id: session.id,
        userId,
      });

      const [row] = await harness.query<{ tokenHash: string; ttl: number; idle: number }>(
        `SELECT token_hash AS "tokenHash",
                extract(epoch FROM expires_at - now())::int AS ttl,
                extract(epoch FROM now() - last_used_at)::int AS idle
           FROM sessions WHERE id = $1`,
        [session.id],
      );
      expect(row).toEqual({ tokenHash: next, ttl: TTL_SECONDS, idle: 0 });
      expect(
        await harness.query(
          `SELECT session_id AS "sessionId" FROM spent_refresh_tokens
                              WHERE token_hash = $1`,
          [session.tokenHash],
        ),
      ).toEqual([{ sessionId: session.id }]);
    });

    it('should match no spent, unknown, expired or revoked token', async () => {
      const spent = await start();
      await sut.rotate(spent.tokenHash, newHash(), TTL_SECONDS);
      const expired = await start();
      await harness.query(
        `UPDATE sessions SET expires_at = now() - interval '1 millisecond' WHERE id = $1`,
        [expired.id],
      );
      const revoked = await start();
      await sut.revokeByToken(revoked.tokenHash);

      for (const hash of [spent.tokenHash, newHash(), expired.tokenHash, revoked.tokenHash]) {
        expect(await sut.rotate(hash, newHash(), TTL_SECONDS)).toBeUndefined();
      }
    });

    // A session of its own holds the row: PGlite serves one session at a time.
    const onServer = process.env.DATABASE_URL ? it : it.skip;

    onServer(
      'should let the first of two concurrent rotations win, the other matching nothing and seeing the spent token',
      async () => {
        const session = await start();
        const other = new pg.Client({ connectionString: harness.database.env.DATABASE_URL });
        await other.connect();
        try {
          await other.query('BEGIN');
          await other.query(
            `WITH rotated AS (UPDATE sessions SET token_hash = $2 WHERE token_hash = $1 RETURNING id)
             INSERT INTO spent_refresh_tokens (token_hash, session_id) SELECT $1, id FROM rotated`,
            [session.tokenHash, newHash()],
          );
          const loser = sut.rotate(session.tokenHash, newHash(), TTL_SECONDS);
          await waitForLockWaiters(other, 1, 'WITH rotated AS');
          await other.query('COMMIT');

          expect(await loser).toBeUndefined();
          expect(await sut.revokeBySpentToken(session.tokenHash)).toEqual([session.id]);
        } finally {
          await other.end();
        }
      },
    );
  });

  describe('revocation', () => {
    it('should revoke the session of a spent token once', async () => {
      const session = await start();
      await sut.rotate(session.tokenHash, newHash(), TTL_SECONDS);

      expect(await sut.revokeBySpentToken(session.tokenHash)).toEqual([session.id]);
      expect(await sut.revokeBySpentToken(session.tokenHash)).toEqual([]);
      expect(await sut.revokeBySpentToken(newHash())).toEqual([]);
      expect(await revokedAt(session.id)).toBeInstanceOf(Date);
    });

    it('should revoke by a current or a spent token, naming each session and its user', async () => {
      const current = await start();
      const spent = await start();
      await sut.rotate(spent.tokenHash, newHash(), TTL_SECONDS);

      expect(await sut.revokeByToken(current.tokenHash)).toEqual([{ id: current.id, userId }]);
      expect(await sut.revokeByToken(spent.tokenHash)).toEqual([{ id: spent.id, userId }]);
      expect(await sut.revokeByToken(newHash())).toEqual([]);
    });

    it('should revoke only an active session of its owner', async () => {
      const mine = await start();
      const theirs = await start(otherUserId);

      expect(await sut.revokeOwned(userId, theirs.id)).toBe(false);
      expect(await sut.revokeOwned(userId, mine.id)).toBe(true);
      expect(await sut.revokeOwned(userId, mine.id)).toBe(false);
      expect(await revokedAt(theirs.id)).toBeNull();
    });

    it('should revoke every live session of a user, and no one else’s', async () => {
      const owner = (
        await harness.query<{ id: number }>(
          `INSERT INTO users (username, email, password_hash) VALUES ('carol', 'c@example.com', 'x')
           RETURNING id`,
        )
      )[0].id;
      const [a, b] = [await start(owner), await start(owner)];
      const theirs = await start(otherUserId);
      await sut.revokeByToken(a.tokenHash);

      expect(await sut.revokeAllOfUser(owner)).toEqual([b.id]);
      expect(await sut.isLive(b.id, owner)).toBe(false);
      expect(await sut.isLive(theirs.id, otherUserId)).toBe(true);
    });
  });

  describe('findActiveOfUser and isLive', () => {
    it('should list the live, unexpired sessions of the user, newest first, up to the limit', async () => {
      const owner = (
        await harness.query<{ id: number }>(
          `INSERT INTO users (username, email, password_hash) VALUES ('dave', 'd@example.com', 'x')
           RETURNING id`,
        )
      )[0].id;
      const [old, expired, revoked, newest] = [
        await start(owner),
        await start(owner),
        await start(owner),
        await start(owner),
      ];
      await harness.query(
        `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`,
        [expired.id],
      );
      await sut.revokeByToken(revoked.tokenHash);

      const listed = await sut.findActiveOfUser(owner, 10);
      expect(listed.map((s) => s.id)).toEqual([newest.id, old.id]);
      expect(listed[0]).toEqual({
        id: newest.id,
        createdAt: expect.any(Date),
        lastUsedAt: expect.any(Date),
        userAgent: 'agent',
        ip: '127.0.0.1',
      });
      expect((await sut.findActiveOfUser(owner, 1)).map((s) => s.id)).toEqual([newest.id]);
      // An expired session's access tokens keep their own hour; a revoked one's do not.
      expect(await sut.isLive(expired.id, owner)).toBe(true);
      expect(await sut.isLive(revoked.id, owner)).toBe(false);
      expect(await sut.isLive(newest.id, otherUserId)).toBe(false);
    });
  });

  describe('deleteEnded', () => {
    const WEEK_SECONDS = 7 * 24 * 3600;

    it('should delete the sessions revoked or expired more than the retention ago, spent tokens included, up to the limit', async () => {
      const [revokedLongAgo, expiredLongAgo, revokedLately, expiredLately, live] = [
        await start(),
        await start(),
        await start(),
        await start(),
        await start(),
      ];
      await sut.rotate(revokedLongAgo.tokenHash, newHash(), TTL_SECONDS);
      await sut.rotate(revokedLately.tokenHash, newHash(), TTL_SECONDS);
      await harness.query(
        `UPDATE sessions SET revoked_at = now() - interval '8 days' WHERE id = $1`,
        [revokedLongAgo.id],
      );
      await harness.query(
        `UPDATE sessions SET expires_at = now() - interval '8 days' WHERE id = $1`,
        [expiredLongAgo.id],
      );
      await harness.query(
        `UPDATE sessions SET revoked_at = now() - interval '6 days' WHERE id = $1`,
        [revokedLately.id],
      );
      await harness.query(
        `UPDATE sessions SET expires_at = now() - interval '6 days' WHERE id = $1`,
        [expiredLately.id],
      );

      expect(await sut.deleteEnded(WEEK_SECONDS, 1)).toBe(1);
      expect(await sut.deleteEnded(WEEK_SECONDS, 1_000)).toBe(1);
      expect(await sut.deleteEnded(WEEK_SECONDS, 1_000)).toBe(0);

      const ids = [revokedLongAgo, expiredLongAgo, revokedLately, expiredLately, live].map(
        (session) => session.id,
      );
      const kept = await harness.query<{ id: number }>(
        `SELECT id FROM sessions WHERE id = ANY($1) ORDER BY id`,
        [ids],
      );
      expect(kept.map((row) => row.id)).toEqual(
        [revokedLately, expiredLately, live].map((session) => session.id),
      );
      const spentOf = await harness.query<{ sessionId: number }>(
        `SELECT session_id AS "sessionId" FROM spent_refresh_tokens
          WHERE session_id = ANY($1) ORDER BY session_id`,
        [[revokedLongAgo.id, revokedLately.id]],
      );
      expect(spentOf.map((row) => row.sessionId)).toEqual([revokedLately.id]);
    });
  });

  it('should go with its user, spent tokens included', async () => {
    const owner = (
      await harness.query<{ id: number }>(
        `INSERT INTO users (username, email, password_hash) VALUES ('erin', 'e@example.com', 'x')
         RETURNING id`,
      )
    )[0].id;
    const session = await start(owner);
    await sut.rotate(session.tokenHash, newHash(), TTL_SECONDS);
    await harness.query(`DELETE FROM users WHERE id = $1`, [owner]);
    expect(
      await harness.query(
        `SELECT 1 FROM sessions WHERE id = $1
         UNION ALL SELECT 1 FROM spent_refresh_tokens WHERE session_id = $1`,
        [session.id],
      ),
    ).toEqual([]);
  });
});
