import { beforeEach, describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { fakeTxHost } from '../../test/support/transactions.js';
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
  let inserted: { entry: NewAuditEntry; inTransaction: boolean }[];
  let counted: string[];
  let txHost: ReturnType<typeof fakeTxHost>;
  let sut: AuditLog;

  beforeEach(() => {
    inserted = [];
    counted = [];
    txHost = fakeTxHost();
    const repository = {
      insert: (entry: NewAuditEntry) => {
        inserted.push({ entry, inTransaction: txHost.active });
        return Promise.resolve();
      },
    };
    const metrics = {
      countAuditEvent: (action: string, outcome: string) => counted.push(`${action} ${outcome}`),
    };
    sut = new AuditLog(
      repository as unknown as AuditRepository,
      metrics as unknown as MetricsService,
      txHost.asHost(),
    );
  });

  describe('record', () => {
    it("should write the entry in the transaction, with the request's actor, address and id", async () => {
      await withAuditRequest(keyedRequest, () =>
        txHost.withTransaction(() =>
          sut.record({
            action: 'category.updated',
            target: { type: 'category', id: 4 },
            changes: { name: { from: 'Dogs', to: 'Cats' } },
          }),
        ),
      );

      expect(inserted).toEqual([
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

    it('should store secrets as [changed] and no changes as none', async () => {
      await txHost.withTransaction(async () => {
        await sut.record({
          action: 'user.updated',
          changes: { passwordHash: { from: 'old-hash', to: 'new-hash' } },
        });
        await sut.record({ action: 'user.updated', changes: {} });
      });

      expect(inserted.map(({ entry }) => entry.changes)).toEqual([
        { passwordHash: { from: '[changed]', to: '[changed]' } },
        null,
      ]);
    });

    it('should let the caller name the actor a request without credential cannot', async () => {
      await txHost.withTransaction(() =>
        sut.record({
          action: 'auth.login',
          actor: { actorUserId: 3, actorUsername: 'ann' },
          target: { type: 'user', id: 3 },
        }),
      );

      expect(inserted[0].entry).toMatchObject({
        actorUserId: 3,
        actorUsername: 'ann',
        actorCredential: 'none',
        ip: null,
        requestId: null,
      });
    });

    it('should count the entry only once the transaction has committed', async () => {
      await expect(
        txHost.withTransaction(async () => {
          await sut.record({ action: 'category.deleted' });
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(counted).toEqual([]);

      await txHost.withTransaction(() => sut.record({ action: 'category.deleted' }));
      expect(counted).toEqual(['category.deleted success']);
    });

    it('should refuse to record outside a transaction', async () => {
      await expect(sut.record({ action: 'category.created' })).rejects.toThrow(
        'AuditLog.record() outside a transaction',
      );
      expect(inserted).toEqual([]);
    });
  });
});
