import { beforeEach, describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { fakeTxHost } from '../../test/support/transactions.js';
import type { PreparedStatements } from '../database/prepared-statements.js';
import { GatheredStatements } from '../database/transactions.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { withAuditRequest } from './audit-context.js';
import { AuditLog } from './audit-log.js';
import type { AuditRepository, NewAuditEntry } from './audit.repository.js';

/** A request as the guards leave it, signed in with an API key. */
const keyedRequest = {
  requestId: 'caller-1',
  ownRequestId: 'req-1',
  clientRequestId: 'caller-1',
  ip: '203.0.113.9',
  headers: { 'user-agent': 'curl/8' },
  principal: {
    kind: 'api-key',
    userId: 7,
    role: 'admin',
    apiKeyId: 2,
    apiKeyPrefix: 'pk_live_AbCd',
  },
} as unknown as Request;

describe(AuditLog.name, () => {
  /** The statements run, each with whether it ran in the transaction. */
  let ran: { sql: string; params: unknown[]; inTransaction: boolean }[];
  let counted: string[];
  let txHost: ReturnType<typeof fakeTxHost>;
  let sut: AuditLog;

  /** The entries the statements run wrote, in order. */
  const inserted = () =>
    ran.flatMap(({ params, inTransaction }) =>
      (params[0] as NewAuditEntry[]).map((entry) => ({ entry, inTransaction })),
    );

  beforeEach(() => {
    ran = [];
    counted = [];
    txHost = fakeTxHost();
    const repository = {
      insertStatement: (entries: NewAuditEntry[]) => ({ sql: 'INSERT entries', params: [entries] }),
    };
    const prepared = {
      query: (_manager: unknown, sql: string, params: unknown[]) => {
        ran.push({ sql, params, inTransaction: txHost.active });
        return Promise.resolve([]);
      },
    };
    const metrics = {
      countAuditEvent: (action: string, outcome: string) => counted.push(`${action} ${outcome}`),
    };
    sut = new AuditLog(
      repository as unknown as AuditRepository,
      metrics as unknown as MetricsService,
      new GatheredStatements(txHost.asHost(), prepared as unknown as PreparedStatements),
      txHost.asHost(),
    );
  });

  /** Runs `work` in a transaction of the fake host. */
  const inTransaction = (work: () => void) => txHost.withTransaction(() => Promise.resolve(work()));

  describe('record', () => {
    it("should write the entry in the transaction, with the request's actor, address and id", async () => {
      await withAuditRequest(keyedRequest, () =>
        inTransaction(() =>
          sut.record({
            action: 'category.updated',
            target: { type: 'category', id: 4 },
            changes: { name: { from: 'Dogs', to: 'Cats' } },
          }),
        ),
      );

      expect(inserted()).toEqual([
        {
          entry: {
            action: 'category.updated',
            outcome: 'success',
            actorUserId: 7,
            actorUsername: null,
            actorCredential: 'api-key',
            actorApiKeyPrefix: 'pk_live_AbCd',
            targetType: 'category',
            targetId: 4,
            changes: { name: { from: 'Dogs', to: 'Cats' } },
            ip: '203.0.113.9',
            userAgent: 'curl/8',
            requestId: 'req-1',
            clientRequestId: 'caller-1',
          },
          inTransaction: true,
        },
      ]);
    });

    it("should write the transaction's entries in one statement, in order, once its work has returned", async () => {
      const seen: number[] = [];
      await inTransaction(() => {
        sut.record({ action: 'category.created', target: { type: 'category', id: 1 } });
        sut.record({ action: 'category.updated', target: { type: 'category', id: 1 } });
        seen.push(ran.length);
      });

      expect(seen).toEqual([0]);
      expect(ran).toHaveLength(1);
      expect(inserted().map(({ entry }) => entry.action)).toEqual([
        'category.created',
        'category.updated',
      ]);
    });

    it('should store secrets as [changed] and no changes as none', async () => {
      await inTransaction(() => {
        sut.record({
          action: 'user.updated',
          changes: { passwordHash: { from: 'old-hash', to: 'new-hash' } },
        });
        sut.record({ action: 'user.updated', changes: {} });
      });

      expect(inserted().map(({ entry }) => entry.changes)).toEqual([
        { passwordHash: { from: '[changed]', to: '[changed]' } },
        null,
      ]);
    });

    it('should let the caller name the actor a request without credential cannot', async () => {
      await inTransaction(() =>
        sut.record({
          action: 'auth.login',
          actor: { actorUserId: 3, actorUsername: 'ann' },
          target: { type: 'user', id: 3 },
        }),
      );

      expect(inserted()[0].entry).toMatchObject({
        actorUserId: 3,
        actorUsername: 'ann',
        actorCredential: 'none',
        ip: null,
        requestId: null,
      });
    });

    it('should count the entry only once the transaction has committed', async () => {
      await expect(
        inTransaction(() => {
          sut.record({ action: 'category.deleted' });
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(counted).toEqual([]);
      expect(ran).toEqual([]);

      await inTransaction(() => sut.record({ action: 'category.deleted' }));
      expect(counted).toEqual(['category.deleted success']);
    });

    it('should refuse to record outside a transaction', () => {
      expect(() => sut.record({ action: 'category.created' })).toThrow(
        'AuditLog.record() outside a transaction',
      );
      expect(ran).toEqual([]);
    });
  });
});
