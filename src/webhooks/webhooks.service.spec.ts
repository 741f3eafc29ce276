import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { WebhooksConfig } from '../config/webhooks.config.js';
import { refusal } from '../../test/support/errors.js';
import { fakeTxHost } from '../../test/support/transactions.js';
import type { DomainEvent } from '../events/domain-event.js';
import type { DomainEvents } from '../events/domain-events.js';
import type { WebhookSubscription } from './webhook-subscription.entity.js';
import type { WebhooksRepository } from './webhooks.repository.js';
import {
  generateWebhookSecret,
  PREVIOUS_SECRET_VALIDITY_MS,
  WebhooksService,
} from './webhooks.service.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** The subscription methods the service uses, as stubs (the delivery side has its own). */
function fakeRepository() {
  return {
    insertSubscription: jest.fn<WebhooksRepository['insertSubscription']>(),
    findSubscriptionPage: jest.fn<WebhooksRepository['findSubscriptionPage']>(),
    findSubscription: jest.fn<WebhooksRepository['findSubscription']>(),
    findSubscriptionForUpdate: jest.fn<WebhooksRepository['findSubscriptionForUpdate']>(),
    updateSubscription: jest.fn<WebhooksRepository['updateSubscription']>(),
    rotateSubscriptionSecret: jest.fn<WebhooksRepository['rotateSubscriptionSecret']>(),
    deleteSubscription: jest.fn<WebhooksRepository['deleteSubscription']>(),
  };
}

function subscription(fields: Partial<WebhookSubscription> = {}): WebhookSubscription {
  return {
    id: 3,
    url: 'https://8.8.8.8/hooks',
    events: ['pet.created'],
    description: null,
    enabled: true,
    disabledReason: null,
    secret: generateWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...fields,
  };
}

describe(WebhooksService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let txHost: ReturnType<typeof fakeTxHost>;
  /** What was published, and whether inside the transaction. */
  let published: { event: DomainEvent; inTransaction: boolean }[];
  const serviceWith = (allowPrivateAddresses: boolean) =>
    new WebhooksService(
      repository as unknown as WebhooksRepository,
      {
        allowPrivateAddresses,
      } as WebhooksConfig,
      {
        publish: (...events: DomainEvent[]) => {
          for (const event of events) published.push({ event, inTransaction: txHost.active });
          return Promise.resolve();
        },
      } as unknown as DomainEvents,
      txHost.asHost(),
    );
  let sut: WebhooksService;

  beforeEach(() => {
    repository = fakeRepository();
    repository.findSubscriptionForUpdate.mockResolvedValue(subscription());
    txHost = fakeTxHost();
    published = [];
    sut = serviceWith(false);
  });

  describe('generateWebhookSecret', () => {
    it('should be whsec_ and the base64 of 32 bytes, new every time', () => {
      const secrets = new Set(Array.from({ length: 20 }, generateWebhookSecret));

      expect(secrets.size).toBe(20);
      for (const secret of secrets) {
        expect(secret).toMatch(SECRET);
        expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      }
    });
  });

  describe('create', () => {
    it('should store the URL, the events, no description and a fresh secret', async () => {
      repository.insertSubscription.mockImplementation((fields) =>
        Promise.resolve(subscription(fields)),
      );

      const created = await sut.create({ url: 'https://8.8.8.8/hooks', events: ['pet.deleted'] });

      expect(repository.insertSubscription).toHaveBeenCalledWith({
        url: 'https://8.8.8.8/hooks',
        events: ['pet.deleted'],
        description: null,
        secret: expect.stringMatching(SECRET),
      });
      expect(created.secret).toMatch(SECRET);
    });

    it.each([
      ['a link-local address', 'http://169.254.169.254/latest/meta-data', true],
      ['a loopback address', 'http://127.0.0.1:8080/hooks', false],
      ['a private address', 'http://10.0.0.1/hooks', false],
      ['the cloud metadata address', 'http://[fd00:ec2::254]/', true],
    ])('should refuse %s with 400 on url, storing nothing', async (_name, url, allowPrivate) => {
      const error = await refusal(
        serviceWith(allowPrivate).create({ url, events: ['pet.created'] }),
      );

      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details).toEqual({ fields: [{ field: 'url', message: expect.any(String) }] });
      expect(repository.insertSubscription).not.toHaveBeenCalled();
    });

    it('should accept loopback and private addresses when the deployment allows them', async () => {
      repository.insertSubscription.mockImplementation((fields) =>
        Promise.resolve(subscription(fields)),
      );
      const allowing = serviceWith(true);

      await allowing.create({ url: 'http://127.0.0.1:8080/hooks', events: ['pet.created'] });
      await allowing.create({ url: 'http://10.0.0.1/hooks', events: ['pet.created'] });

      expect(repository.insertSubscription).toHaveBeenCalledTimes(2);
    });
  });

  describe('update', () => {
    it('should write only the fields sent', async () => {
      repository.updateSubscription.mockResolvedValue(subscription());

      await sut.update(3, { events: ['pet.updated'], description: null });

      expect(repository.updateSubscription).toHaveBeenCalledWith(3, {
        events: ['pet.updated'],
        description: null,
      });
    });

    it('should clear the reason and the failing streak when enabling', async () => {
      repository.updateSubscription.mockResolvedValue(subscription());

      await sut.update(3, { enabled: true });

      expect(repository.updateSubscription).toHaveBeenCalledWith(3, {
        enabled: true,
        disabledReason: null,
        failingSince: null,
      });
    });

    it('should keep the reason when disabling', async () => {
      repository.updateSubscription.mockResolvedValue(subscription());

      await sut.update(3, { enabled: false });

      expect(repository.updateSubscription).toHaveBeenCalledWith(3, { enabled: false });
    });

    it('should check a new URL as creation does', async () => {
      const error = await refusal(sut.update(3, { url: 'http://192.168.1.1/' }));

      expect(error.details).toEqual({ fields: [{ field: 'url', message: expect.any(String) }] });
      expect(repository.updateSubscription).not.toHaveBeenCalled();
    });

    it('should answer 404 WEBHOOK_NOT_FOUND for a subscription that does not exist', async () => {
      repository.findSubscriptionForUpdate.mockResolvedValue(null);

      expect((await refusal(sut.update(4, { enabled: false }))).code).toBe('WEBHOOK_NOT_FOUND');
      expect(repository.updateSubscription).not.toHaveBeenCalled();
    });

    it('should publish webhook.updated before and after, without secrets, inside its transaction', async () => {
      repository.updateSubscription.mockResolvedValue(subscription({ enabled: false }));

      await sut.update(3, { enabled: false });

      const fields = {
        id: 3,
        url: 'https://8.8.8.8/hooks',
        events: ['pet.created'],
        description: null,
      };
      expect(published).toEqual([
        {
          event: {
            type: 'webhook.updated',
            subject: 'webhook:3',
            webhookId: 3,
            before: { ...fields, enabled: true },
            after: { ...fields, enabled: false },
          },
          inTransaction: true,
        },
      ]);
    });
  });

  describe('rotateSecret', () => {
    it('should hand the repository a new secret and an expiry a day from now', async () => {
      repository.rotateSubscriptionSecret.mockResolvedValue(subscription());
      const before = Date.now();

      await sut.rotateSecret(3);

      const [id, secret, expiresAt] = repository.rotateSubscriptionSecret.mock.calls[0];
      expect(id).toBe(3);
      expect(secret).toMatch(SECRET);
      expect(expiresAt.getTime()).toBeGreaterThanOrEqual(before + PREVIOUS_SECRET_VALIDITY_MS);
      expect(expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + PREVIOUS_SECRET_VALIDITY_MS);
      expect(published.map(({ event, inTransaction }) => [event.type, inTransaction])).toEqual([
        ['webhook.secret_rotated', true],
      ]);
      expect(JSON.stringify(published)).not.toContain('whsec_');
    });

    it('should answer 404 WEBHOOK_NOT_FOUND for a subscription that does not exist', async () => {
      repository.rotateSubscriptionSecret.mockResolvedValue(null);

      expect((await refusal(sut.rotateSecret(4))).code).toBe('WEBHOOK_NOT_FOUND');
    });
  });

  describe('findOne and remove', () => {
    it('should answer 404 WEBHOOK_NOT_FOUND for a subscription that does not exist', async () => {
      repository.findSubscription.mockResolvedValue(null);
      repository.findSubscriptionForUpdate.mockResolvedValue(null);

      expect((await refusal(sut.findOne(4))).code).toBe('WEBHOOK_NOT_FOUND');
      expect((await refusal(sut.remove(4))).code).toBe('WEBHOOK_NOT_FOUND');
    });
  });

  describe('list', () => {
    it('should page from offset 0 by default and say whether more follow', async () => {
      repository.findSubscriptionPage.mockResolvedValue({
        subscriptions: [subscription(), subscription({ id: 2 })],
        total: 3,
      });

      const page = await sut.list({ limit: 2 });

      expect(repository.findSubscriptionPage).toHaveBeenCalledWith(2, 0);
      expect(page.pagination).toEqual({ limit: 2, offset: 0, total: 3, hasMore: true });
    });
  });
});
