import { describe, expect, it, jest } from '@jest/globals';
import { webhooksConfig } from '../../config/webhooks.config.js';
import type { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import type { WebhookDeliveryJobs } from './webhook-delivery-jobs.js';
import type { TxHost } from '../../database/transactions.js';

const DAY_MS = 24 * 3_600_000;

describe(WebhookDeliveriesService.name, () => {
  describe('removeExpired', () => {
    it('should delete the deliveries that ended more than 30 days ago, a batch at a time, until one comes back short', async () => {
      let left = 2_503;
      const deleteEndedBefore = jest.fn<WebhookDeliveriesRepository['deleteEndedBefore']>(
        (_before, limit) => {
          const deleted = Math.min(left, limit);
          left -= deleted;
          return Promise.resolve(deleted);
        },
      );
      const sut = new WebhookDeliveriesService(
        { deleteEndedBefore } as unknown as WebhookDeliveriesRepository,
        {} as WebhookDeliveryJobs,
        webhooksConfig(),
        {} as TxHost,
      );
      const now = new Date('2026-11-21T12:00:00.000Z');

      expect(await sut.removeExpired(now)).toBe(2_503);

      expect(left).toBe(0);
      const [, batch] = deleteEndedBefore.mock.calls[0];
      const thirtyDaysBefore = new Date(now.getTime() - 30 * DAY_MS);
      expect(deleteEndedBefore.mock.calls).toEqual(
        Array.from({ length: Math.floor(2_503 / batch) + 1 }, () => [thirtyDaysBefore, batch]),
      );
    });
  });
});
