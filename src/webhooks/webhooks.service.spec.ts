import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Principal } from '../common/types/principal.js';
import type { WebhooksConfig } from '../config/webhooks.config.js';
import { refusal } from '../../test/support/errors.js';
import { fakeTxHost } from '../../test/support/transactions.js';
import type { DomainEvent } from '../events/domain-event.js';
import type { DomainEvents } from '../events/domain-events.js';
import type { UserLookupService } from '../users/user-lookup.service.js';
import type { WebhookSubscription } from './webhook-subscription.entity.js';
import type { WebhooksRepository } from './webhooks.repository.js';
import {
  generateWebhookSecret,
  PREVIOUS_SECRET_VALIDITY_MS,
  WebhooksService,
} from './webhooks.service.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ADMIN: Principal = { kind: 'user', userId: 1, role: 'admin' };
const USER: Principal = { kind: 'user', userId: 7, role: 'user' };
const PER_USER = 2;

/** The subscription methods the service uses, as stubs (the delivery side has its own). */
function fakeRepository() {
  return {
    insertSubscription: jest.fn<WebhooksRepository['insertSubscription']>(),
    countOfOwner: jest.fn<WebhooksRepository['countOfOwner']>(),
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
    ownerId: ADMIN.userId,
    owner: null,
    url: 'https://8.8.8.8/hooks',
    events: ['pet.created'],
    filterCategoryIds: null,
    filterStatuses: null,
    filterTags: null,
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
        perUser: PER_USER,
      } as WebhooksConfig,
      {
        publish: (...events: DomainEvent[]) => {
          for (const event of events) published.push({ event, inTransaction: txHost.active });
          return Promise.resolve();
        },
      } as unknown as DomainEvents,
      { lockForUpdate: () => Promise.resolve(true) } as unknown as UserLookupService,
      txHost.asHost(),
    );
  let sut: WebhooksService;

  beforeEach(() => {
    repository = fakeRepository();
    repository.findSubscriptionForUpdate.mockResolvedValue(subscription());
    repository.countOfOwner.mockResolvedValue(0);
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
    it('should store the caller as owner, the URL, the events, no description or filters and a fresh secret', async () => {
      repository.insertSubscription.mockImplementation((fields) =>
        Promise.resolve(subscription(fields)),
      );

      const created = await sut.create(USER, {
        url: 'https://8.8.8.8/hooks',
        events: ['pet.deleted'],
      });

      expect(repository.insertSubscription).toHaveBeenCalledWith({
        ownerId: USER.userId,
        url: 'https://8.8.8.8/hooks',
        events: ['pet.deleted'],
        description: null,
        secret: expect.stringMatching(SECRET),
        filterCategoryIds: null,
        filterStatuses: null,
        filterTags: null,
      });
      expect(created.secret).toMatch(SECRET);
    });

    it('should store the filters given, each left out as null', async () => {
      repository.insertSubscription.mockImplementation((fields) =>
        Promise.resolve(subscription(fields)),
      );

      await sut.create(USER, {
        url: 'https://8.8.8.8/hooks',
        events: ['pet.created'],
        filters: { statuses: ['sold'], tags: ['calm'] },
      });

      expect(repository.insertSubscription).toHaveBeenCalledWith(
        expect.objectContaining({
          filterCategoryIds: null,
          filterStatuses: ['sold'],
          filterTags: ['calm'],
        }),
      );
    });

    it('should refuse one subscription beyond WEBHOOKS_PER_USER with 409 WEBHOOK_LIMIT_REACHED', async () => {
      repository.countOfOwner.mockResolvedValue(PER_USER);

      const error = await refusal(
        sut.create(USER, { url: 'https://8.8.8.8/hooks', events: ['pet.created'] }),
      );

      expect(error.code).toBe('WEBHOOK_LIMIT_REACHED');
      expect(error.details).toEqual({ limit: PER_USER });
      expect(repository.countOfOwner).toHaveBeenCalledWith(USER.userId);
      expect(repository.insertSubscription).not.toHaveBeenCalled();
    });

    it.each([
      ['a link-local address', 'http://169.254.169.254/latest/meta-data', true],
      ['a loopback address', 'http://127.0.0.1:8080/hooks', false],
      ['a private address', 'http://10.0.0.1/hooks', false],
      ['the cloud metadata address', 'http://[fd00:ec2::254]/', true],
    ])('should refuse %s with 400 on url, storing nothing', async (_name, url, allowPrivate) => {
      const error = await refusal(
        serviceWith(allowPrivate).create(ADMIN, { url, events: ['pet.created'] }),
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

      await allowing.create(ADMIN, { url: 'http://127.0.0.1:8080/hooks', events: ['pet.created'] });
      await allowing.create(ADMIN, { url: 'http://10.0.0.1/hooks', events: ['pet.created'] });

      expect(repository.insertSubscription).toHaveBeenCalledTimes(2);
    });
  });

  describe('update', () => {
    it('should write only the fields sent', async () => {
      repository.updateSubscription.mockResolvedValue(subscription());

      await sut.update(ADMIN, 3, { events: ['pet.updated'], description: null });

      expect(repository.updateSubscription).toHaveBeenCalledWith(3, {
        events: ['pet.updated'],
        description: null,
      });
    });

    it('should clear the reason and the failing streak when enabling', async () => {
      repository.updateSubscription.mockResolvedValue(subscription());

      await sut.update(ADMIN, 3, { enabled: true });

      expect(repository.updateSubscription).toHaveBeenCalledWith(3, {
        enabled: true,
        disabledReason: null,
        failingSince: null,
      });
    });

    it('should keep the reason when disabling', async () => {
      repository.updateSubscription.mockResolvedValue(subscription());

      await sut.update(ADMIN, 3, { enabled: false });

      expect(repository.updateSubscription).toHaveBeenCalledWith(3, { enabled: false });
    });

    it('should replace the filters as a whole, and clear them all with null', async () => {
      repository.updateSubscription.mockResolvedValue(subscription());

      await sut.update(ADMIN, 3, { filters: { categoryIds: [4] } });
      await sut.update(ADMIN, 3, { filters: null });

      const cleared = { filterCategoryIds: null, filterStatuses: null, filterTags: null };
      expect(repository.updateSubscription.mock.calls).toEqual([
        [3, { ...cleared, filterCategoryIds: [4] }],
        [3, cleared],
      ]);
    });

    it('should look for a user’s own subscription only, and an admin’s anywhere', async () => {
      repository.updateSubscription.mockResolvedValue(subscription());

      await sut.update(USER, 3, { enabled: false });
      await sut.update(ADMIN, 3, { enabled: false });

      expect(repository.findSubscriptionForUpdate.mock.calls).toEqual([
        [3, USER.userId],
        [3, undefined],
      ]);
    });

    it('should check a new URL as creation does', async () => {
      const error = await refusal(sut.update(ADMIN, 3, { url: 'http://192.168.1.1/' }));

      expect(error.details).toEqual({ fields: [{ field: 'url', message: expect.any(String) }] });
      expect(repository.updateSubscription).not.toHaveBeenCalled();
    });

    it('should answer 404 WEBHOOK_NOT_FOUND for a subscription that does not exist', async () => {
      repository.findSubscriptionForUpdate.mockResolvedValue(null);

      expect((await refusal(sut.update(ADMIN, 4, { enabled: false }))).code).toBe(
        'WEBHOOK_NOT_FOUND',
      );
      expect(repository.updateSubscription).not.toHaveBeenCalled();
    });

    it('should publish webhook.updated before and after, without secrets, inside its transaction', async () => {
      repository.updateSubscription.mockResolvedValue(subscription({ enabled: false }));

      await sut.update(ADMIN, 3, { enabled: false });

      const fields = {
        id: 3,
        ownerId: ADMIN.userId,
        url: 'https://8.8.8.8/hooks',
        events: ['pet.created'],
        filters: null,
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

      await sut.rotateSecret(ADMIN, 3);

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
      repository.findSubscriptionForUpdate.mockResolvedValue(null);

      expect((await refusal(sut.rotateSecret(ADMIN, 4))).code).toBe('WEBHOOK_NOT_FOUND');
      expect(repository.rotateSubscriptionSecret).not.toHaveBeenCalled();
    });
  });

  describe('findOne and remove', () => {
    it('should answer 404 WEBHOOK_NOT_FOUND for a subscription that does not exist', async () => {
      repository.findSubscription.mockResolvedValue(null);
      repository.findSubscriptionForUpdate.mockResolvedValue(null);

      expect((await refusal(sut.findOne(ADMIN, 4))).code).toBe('WEBHOOK_NOT_FOUND');
      expect((await refusal(sut.remove(ADMIN, 4))).code).toBe('WEBHOOK_NOT_FOUND');
    });
  });

  describe('list', () => {
    it('should page from offset 0 by default and say whether more follow', async () => {
      repository.findSubscriptionPage.mockResolvedValue({
        subscriptions: [subscription(), subscription({ id: 2 })],
        total: 3,
      });

      const page = await sut.list(ADMIN, { limit: 2 });

      expect(repository.findSubscriptionPage).toHaveBeenCalledWith(undefined, 2, 0);
      expect(page.pagination).toEqual({ limit: 2, offset: 0, total: 3, hasMore: true });
    });

    it('should list a user’s own subscriptions only', async () => {
      repository.findSubscriptionPage.mockResolvedValue({ subscriptions: [], total: 0 });

      await sut.list(USER, { limit: 20 });

      expect(repository.findSubscriptionPage).toHaveBeenCalledWith(USER.userId, 20, 0);
    });
  });
});
