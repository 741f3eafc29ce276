import { lookup as dnsLookup } from 'node:dns';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { webhooksConfig, type WebhooksConfig } from '../../config/webhooks.config.js';
import type { MetricsService } from '../../metrics/metrics.service.js';
import { waitFor } from '../../../test/support/wait.js';
import { BoundedLookup, type LookupAll } from '../outbound/bounded-lookup.js';
import { WebhookHttpClient, type AttemptResult } from '../outbound/webhook-http-client.js';
import type {
  AttemptOutcome,
  AttemptRow,
  ClaimedDelivery,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

const HOUR = 3_600_000;
const config = {
  retryBaseMs: 60_000,
  retryForMs: 24 * HOUR,
  pollIntervalMs: 60_000,
} as WebhooksConfig;

function claimed(fields: Partial<ClaimedDelivery> = {}): ClaimedDelivery {
  return {
    id: 7,
    subscriptionId: 3,
    eventId: 'evt_0123456789abcdef0123456789abcdef',
    body: '{"type":"pet.created"}',
    attempts: 0,
    firstAttemptAt: null,
    leaseToken: 'token',
    url: 'https://example.com/hook',
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    previousSecret: null,
    previousSecretExpiresAt: null,
    ...fields,
  };
}

function metricsStub(countWebhookDelivery = jest.fn()): MetricsService {
  return {
    observeWebhookDelivery: jest.fn(),
    countWebhookDelivery,
  } as unknown as MetricsService;
}

/** Runs one cycle that claims `delivery`, answered with `result`: what it recorded. */
async function attempt(delivery: ClaimedDelivery, result: AttemptResult) {
  const recordAttempt = jest.fn(
    (_delivery: ClaimedDelivery, _attempt: AttemptRow, _outcome: AttemptOutcome) =>
      Promise.resolve({ disabledSubscription: false }),
  );
  const claims = [[delivery]];
  const deliveries = {
    claim: () => Promise.resolve(claims.shift() ?? []),
    recordAttempt,
  } as unknown as WebhookDeliveriesRepository;
  const client = { post: () => Promise.resolve(result) } as unknown as WebhookHttpClient;
  const countWebhookDelivery = jest.fn();
  const dispatcher = new WebhookDispatcher(
    deliveries,
    client,
    metricsStub(countWebhookDelivery),
    config,
  );

  dispatcher.nudge();
  await waitFor(() => Promise.resolve(recordAttempt.mock.calls.length > 0), 5_000);
  await dispatcher.beforeApplicationShutdown();
  await dispatcher.onApplicationShutdown();
  expect(recordAttempt).toHaveBeenCalledTimes(1);
  const [, record, outcome] = recordAttempt.mock.calls[0];
  return { record, outcome, counted: countWebhookDelivery.mock.calls.map(([o]) => o) };
}

const failure: AttemptResult = { statusCode: 500, durationMs: 40, error: 'answered with 500' };

describe(WebhookDispatcher.name, () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('should record a 2xx as succeeded', async () => {
    const { record, outcome, counted } = await attempt(claimed(), {
      statusCode: 204,
      durationMs: 12,
    });

    expect(record).toMatchObject({ statusCode: 204, durationMs: 12, error: null });
    expect(outcome).toEqual({ status: 'succeeded' });
    expect(counted).toEqual(['succeeded']);
  });

  it('should schedule a failed attempt after a backoff drawn for the attempts made so far', async () => {
    // The third attempt fails: its retry is drawn below 4 × the base; half of it here.
    jest.spyOn(Math, 'random').mockReturnValue(0.5);

    const { record, outcome, counted } = await attempt(claimed({ attempts: 2 }), failure);

    const ended = record.attemptedAt.getTime() + failure.durationMs;
    expect(outcome).toEqual({ status: 'pending', nextAttemptAt: new Date(ended + 120_000) });
    expect(counted).toEqual(['retrying']);
  });

  it('should mark failed a delivery whose attempt fails 24 hours after its first', async () => {
    const firstAttemptAt = new Date(Date.now() - 24 * HOUR);

    const { outcome, counted } = await attempt(claimed({ attempts: 30, firstAttemptAt }), failure);

    expect(outcome).toEqual({ status: 'failed' });
    expect(counted).toEqual(['failed']);
  });

  it('should give a first attempt its 24 hours of retries, however long the delivery waited', async () => {
    const { outcome } = await attempt(claimed({ attempts: 0, firstAttemptAt: null }), failure);

    expect(outcome).toEqual({ status: 'pending', nextAttemptAt: expect.any(Date) });
  });

  it('should send a second subscription’s delivery while the first one’s host never answers DNS', async () => {
    // The first subscription's host gets no DNS answer, as when its name servers are dead;
    // every other name goes to the system resolver.
    const held: ((error: NodeJS.ErrnoException) => void)[] = [];
    const lookup: LookupAll = (hostname, options, callback) => {
      if (hostname === 'dead.test') held.push((error) => callback(error, []));
      else dnsLookup(hostname, options, callback);
    };
    const received: IncomingHttpHeaders[] = [];
    const receiver = createServer((request, response) => {
      received.push(request.headers);
      request.resume().on('end', () => response.writeHead(204).end());
    }).listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const live = `http://localhost:${(receiver.address() as AddressInfo).port}/hook`;
    const client = new WebhookHttpClient(
      { ...webhooksConfig(), allowPrivateAddresses: true, connectTimeoutMs: 1_000 },
      new BoundedLookup(2, lookup),
    );
    const recordAttempt = jest.fn(
      (_delivery: ClaimedDelivery, _attempt: AttemptRow, _outcome: AttemptOutcome) =>
        Promise.resolve({ disabledSubscription: false }),
    );
    // Two pets' deliveries to the dead host, claimed together with the live one.
    const claims = [
      [
        claimed({ id: 1, subscriptionId: 1, url: 'http://dead.test/hook' }),
        claimed({ id: 2, subscriptionId: 1, url: 'http://dead.test/hook' }),
        claimed({ id: 3, subscriptionId: 2, url: live }),
      ],
    ];
    const deliveries = {
      claim: () => Promise.resolve(claims.shift() ?? []),
      recordAttempt,
    } as unknown as WebhookDeliveriesRepository;
    const dispatcher = new WebhookDispatcher(deliveries, client, metricsStub(), config);
    const recordOf = (id: number) => recordAttempt.mock.calls.find(([d]) => d.id === id);

    try {
      dispatcher.nudge();
      await waitFor(() => Promise.resolve(recordOf(3) !== undefined));

      expect(recordOf(3)?.slice(1, 3)).toEqual([
        expect.objectContaining({ statusCode: 204, error: null }),
        { status: 'succeeded' },
      ]);
      expect(received).toHaveLength(1);
      expect(held).toHaveLength(1);
      // The dead host's deliveries give up on DNS in time, still unanswered.
      await waitFor(() => Promise.resolve(recordOf(1) !== undefined && recordOf(2) !== undefined));
      for (const id of [1, 2]) {
        expect(recordOf(id)?.[1].error).toBe(
          'dead.test could not be resolved in time (no DNS answer within 0.8 s)',
        );
      }
      expect(held).toHaveLength(1);
    } finally {
      await dispatcher.beforeApplicationShutdown();
      await dispatcher.onApplicationShutdown();
      for (const answer of held) answer(Object.assign(new Error('gave up'), { code: 'ENOTFOUND' }));
      await client.close();
      receiver.close();
    }
  });
});
