import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { IdempotencyKey } from '../../../src/idempotency/idempotency-key.entity.js';
import {
  IdempotencyRepository,
  type IdempotencyScope,
  type StoredResponse,
} from '../../../src/idempotency/idempotency.repository.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

const LEASE_MS = 60_000;
const RETENTION_MS = 24 * 3_600_000;
const USER = 7;
const OTHER_USER = 8;
const CREATE_PET = 'POST /v1/pets';

const fingerprintOf = (request: string) => createHash('sha256').update(request).digest('hex');
const REQUEST = fingerprintOf('POST /v1/pets {"name":"Rex"}');
const OTHER_REQUEST = fingerprintOf('POST /v1/pets {"name":"Fido"}');
const CREATED: StoredResponse = {
  status: 201,
  headers: { location: '/v1/pets/1' },
  body: { id: 1, name: 'Rex' },
};

interface KeyRow {
  userId: number;
  operation: string;
  key: string;
  fingerprint: string;
  token: string;
  status: number | null;
  headers: Record<string, string> | null;
  body: unknown;
  /** From the claim (`created_at`) to the end of the lease, and to the expiry. */
  leaseMs: number | null;
  retentionMs: number;
}

describe(IdempotencyRepository.name, () => {
  let harness: RepositoryHarness;
  let sut: IdempotencyRepository;
  let keys = 0;

  const scope = (fields: Partial<IdempotencyScope> = {}): IdempotencyScope => ({
    userId: USER,
    operation: CREATE_PET,
    key: `key-${(keys += 1)}`,
    ...fields,
  });
  const claim = (at: IdempotencyScope, token = randomUUID(), fingerprint = REQUEST) =>
    sut.claim(at, fingerprint, token, LEASE_MS, RETENTION_MS);
  const rows = () =>
    harness.query<KeyRow>(
      `SELECT user_id AS "userId", operation, key, fingerprint, token::text AS token,
              response_status AS status, response_headers AS headers, response_body AS body,
              (extract(epoch FROM locked_until - created_at) * 1000)::int AS "leaseMs",
              (extract(epoch FROM expires_at - created_at) * 1000)::int AS "retentionMs"
         FROM idempotency_keys
        ORDER BY user_id, operation, key`,
    );
  const rowOf = async (at: IdempotencyScope) =>
    (await rows()).find(
      (row) => row.userId === at.userId && row.operation === at.operation && row.key === at.key,
    );
  const set = (at: IdempotencyScope, assignment: string) =>
    harness.query(
      `UPDATE idempotency_keys SET ${assignment}
        WHERE user_id = $1 AND operation = $2 AND key = $3`,
      [at.userId, at.operation, at.key],
    );
  const expire = (at: IdempotencyScope) => set(at, `expires_at = now() - interval '1 second'`);
  const endLease = (at: IdempotencyScope) => set(at, `locked_until = now() - interval '1 second'`);

  beforeAll(async () => {
    harness = await createRepositoryHarness([IdempotencyRepository], {
      entities: [IdempotencyKey],
    });
    sut = harness.get(IdempotencyRepository);
  });
  afterAll(async () => {
    await harness?.close();
  });
  beforeEach(async () => {
    await harness.query('DELETE FROM idempotency_keys');
  });

  describe('claim', () => {
    it('should add a running key held by the token, locked for the lease and kept for the retention', async () => {
      const at = scope();
      const token = randomUUID();

      expect(await claim(at, token)).toBe(true);

      expect(await rows()).toEqual([
        {
          ...at,
          fingerprint: REQUEST,
          token,
          status: null,
          headers: null,
          body: null,
          leaseMs: LEASE_MS,
          retentionMs: RETENTION_MS,
        },
      ]);
    });

    it('should refuse a key that is running within its lease, and leave it to its holder', async () => {
      const at = scope();
      const holder = randomUUID();
      await claim(at, holder);

      expect(await claim(at)).toBe(false);

      expect(await rowOf(at)).toEqual(expect.objectContaining({ token: holder }));
    });

    it('should let the same request take over a key whose lease ended without a response', async () => {
      const at = scope();
      await claim(at);
      await endLease(at);
      const takeover = randomUUID();

      expect(await claim(at, takeover)).toBe(true);

      expect(await rowOf(at)).toEqual(
        expect.objectContaining({ token: takeover, leaseMs: LEASE_MS, status: null }),
      );
    });

    it('should not let another request take over a key whose lease ended', async () => {
      const at = scope();
      const holder = randomUUID();
      await claim(at, holder);
      await endLease(at);

      expect(await claim(at, randomUUID(), OTHER_REQUEST)).toBe(false);

      expect(await rowOf(at)).toEqual(
        expect.objectContaining({ token: holder, fingerprint: REQUEST }),
      );
    });

    it('should refuse a completed key that has not expired, even to the same request', async () => {
      const at = scope();
      const holder = randomUUID();
      await claim(at, holder);
      await sut.complete(at, holder, CREATED, RETENTION_MS);

      expect(await claim(at)).toBe(false);

      expect(await rowOf(at)).toEqual(
        expect.objectContaining({ token: holder, status: 201, leaseMs: null }),
      );
    });

    it('should let any request take over an expired key, dropping the response it kept', async () => {
      const at = scope();
      const holder = randomUUID();
      await claim(at, holder);
      await sut.complete(at, holder, CREATED, RETENTION_MS);
      await expire(at);
      const token = randomUUID();

      expect(await claim(at, token, OTHER_REQUEST)).toBe(true);

      expect(await rowOf(at)).toEqual({
        ...at,
        fingerprint: OTHER_REQUEST,
        token,
        status: null,
        headers: null,
        body: null,
        leaseMs: LEASE_MS,
        retentionMs: RETENTION_MS,
      });
    });

    it('should keep one key apart per user and per operation', async () => {
      const at = scope();
      const sameKeyOtherUser = { ...at, userId: OTHER_USER };
      const sameKeyOtherOperation = { ...at, operation: 'POST /v1/categories' };

      expect(await claim(at)).toBe(true);
      expect(await claim(sameKeyOtherUser)).toBe(true);
      expect(await claim(sameKeyOtherOperation)).toBe(true);

      expect(
        (await rows()).map(({ userId, operation, key }) => ({ userId, operation, key })),
      ).toEqual([sameKeyOtherOperation, at, sameKeyOtherUser]);
    });

    it('should give a key to exactly one of several claims made at once', async () => {
      const at = scope();
      const tokens = Array.from({ length: 5 }, () => randomUUID());

      const claimed = await Promise.all(tokens.map((token) => claim(at, token)));

      expect(claimed.filter(Boolean)).toHaveLength(1);
      const winner = tokens[claimed.indexOf(true)];
      expect(await rows()).toEqual([expect.objectContaining({ token: winner })]);
    });
  });

  describe('find', () => {
    it('should find nothing for a key never claimed', async () => {
      expect(await sut.find(scope())).toBeUndefined();
    });

    it('should find a running key by its fingerprint alone', async () => {
      const at = scope();
      await claim(at);

      expect(await sut.find(at)).toEqual({ fingerprint: REQUEST });
    });

    it('should find a completed key with its response, the body’s keys in their stored order', async () => {
      const at = scope();
      const token = randomUUID();
      await claim(at, token);
      const response = { ...CREATED, body: { name: 'Rex', id: 1, tags: [] } };
      await sut.complete(at, token, response, RETENTION_MS);

      const found = await sut.find(at);

      expect(found).toEqual({ fingerprint: REQUEST, response });
      expect(JSON.stringify(found?.response?.body)).toBe('{"name":"Rex","id":1,"tags":[]}');
    });

    it('should answer empty headers for a stored response that has none', async () => {
      const at = scope();
      await claim(at);
      await set(at, `response_status = 204, response_headers = NULL, locked_until = NULL`);

      expect(await sut.find(at)).toEqual({
        fingerprint: REQUEST,
        response: { status: 204, headers: {}, body: null },
      });
    });

    it('should treat an expired key as gone while its row is still there', async () => {
      const at = scope();
      await claim(at);
      await expire(at);

      expect(await sut.find(at)).toBeUndefined();
      expect(await rows()).toHaveLength(1);
    });

    it('should find a key only in its own user’s and operation’s scope', async () => {
      const at = scope();
      await claim(at);

      expect(await sut.find({ ...at, userId: OTHER_USER })).toBeUndefined();
      expect(await sut.find({ ...at, operation: 'POST /v1/categories' })).toBeUndefined();
    });
  });

  describe('complete', () => {
    it('should store the response of the claim the token holds, unlock it and keep it for the retention from now', async () => {
      const at = scope();
      const token = randomUUID();
      await claim(at, token);
      // An hour into the request, so the retention visibly restarts at completion.
      await set(at, `created_at = created_at - interval '1 hour'`);

      expect(await sut.complete(at, token, CREATED, RETENTION_MS)).toBe(true);

      const [row] = await rows();
      expect(row).toEqual({
        ...at,
        fingerprint: REQUEST,
        token,
        status: CREATED.status,
        headers: CREATED.headers,
        body: CREATED.body,
        leaseMs: null,
        retentionMs: expect.any(Number),
      });
      expect(row.retentionMs).toBeGreaterThanOrEqual(RETENTION_MS + 3_600_000);
      const [{ expiresWithin }] = await harness.query<{ expiresWithin: boolean }>(
        `SELECT expires_at <= now() + $1 * interval '1 millisecond' AS "expiresWithin"
           FROM idempotency_keys`,
        [RETENTION_MS],
      );
      expect(expiresWithin).toBe(true);
    });

    it('should store nothing for a token whose claim was taken over', async () => {
      const at = scope();
      const lost = randomUUID();
      await claim(at, lost);
      await endLease(at);
      const takeover = randomUUID();
      await claim(at, takeover);

      expect(await sut.complete(at, lost, CREATED, RETENTION_MS)).toBe(false);

      expect(await rowOf(at)).toEqual(
        expect.objectContaining({ token: takeover, status: null, body: null }),
      );
    });

    it('should store nothing for a key that was released', async () => {
      const at = scope();
      const token = randomUUID();
      await claim(at, token);
      await sut.release(at, token);

      expect(await sut.complete(at, token, CREATED, RETENTION_MS)).toBe(false);

      expect(await rows()).toEqual([]);
    });

    it('should store nothing under the same token in another user’s scope', async () => {
      const at = scope();
      const token = randomUUID();
      await claim(at, token);

      expect(await sut.complete({ ...at, userId: OTHER_USER }, token, CREATED, RETENTION_MS)).toBe(
        false,
      );

      expect(await rows()).toEqual([expect.objectContaining({ userId: USER, status: null })]);
    });
  });

  describe('release', () => {
    it('should delete the key its token holds, so that the next claim runs', async () => {
      const at = scope();
      const token = randomUUID();
      await claim(at, token);

      expect(await sut.release(at, token)).toBe(true);

      expect(await rows()).toEqual([]);
      expect(await claim(at, randomUUID(), OTHER_REQUEST)).toBe(true);
    });

    it('should keep a key held by another token', async () => {
      const at = scope();
      const holder = randomUUID();
      await claim(at, holder);

      expect(await sut.release(at, randomUUID())).toBe(false);

      expect(await rows()).toEqual([expect.objectContaining({ token: holder })]);
    });

    it('should release nothing for a key never claimed, nor in another user’s scope', async () => {
      const at = scope();
      const token = randomUUID();
      await claim(at, token);

      expect(await sut.release(scope(), token)).toBe(false);
      expect(await sut.release({ ...at, userId: OTHER_USER }, token)).toBe(false);

      expect(await rows()).toHaveLength(1);
    });
  });

  describe('deleteExpired', () => {
    it('should delete every expired key, running or completed, and keep the live ones', async () => {
      const [running, completed, live, completedLive] = [scope(), scope(), scope(), scope()];
      for (const at of [running, completed, live, completedLive]) {
        const token = randomUUID();
        await claim(at, token);
        if (at === completed || at === completedLive) {
          await sut.complete(at, token, CREATED, RETENTION_MS);
        }
      }
      await expire(running);
      await expire(completed);

      expect(await sut.deleteExpired()).toBe(2);

      expect((await rows()).map((row) => row.key).sort()).toEqual(
        [live.key, completedLive.key].sort(),
      );
    });

    it('should delete nothing when no key has expired', async () => {
      await claim(scope());

      expect(await sut.deleteExpired()).toBe(0);

      expect(await rows()).toHaveLength(1);
    });
  });
});
