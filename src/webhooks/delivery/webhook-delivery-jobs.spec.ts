import { lookup as dnsLookup } from 'node:dns';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { webhooksConfig, type WebhooksConfig } from '../../config/webhooks.config.js';
import type { Jobs } from '../../events/jobs.js';
import type { MetricsService } from '../../metrics/metrics.service.js';
import { waitFor } from '../../../test/support/wait.js';
import { BoundedLookup, type LookupAll } from '../outbound/bounded-lookup.js';
import { WebhookHttpClient, type AttemptResult } from '../outbound/webhook-http-client.js';
import type {
  AttemptOutcome,
  AttemptRow,
  DeliveryToSend,
  WebhookDeliveriesRepository,
} from './webhook-deliveries.repository.js';
import { WebhookDeliveryJobs, type WebhookDeliveryJob } from './webhook-delivery-jobs.js';

const HOUR = 3_600_000;
const config = { retryBaseMs: 60_000, retryForMs: 24 * HOUR } as WebhooksConfig;

function toSend(fields: Partial<DeliveryToSend> = {}): DeliveryToSend {
  return {
    id: 7,
    subscriptionId: 3,
    status: 'pending',
    enabled: true,
    nextAttemptAt: new Date(),
    notDueYet: false,
    eventId: 'evt_0123456789abcdef0123456789abcdef',
    body: '{"type":"pet.created"}',
    attempts: 0,
    firstAttemptAt: null,
    url: 'https://example.com/hook',
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    previousSecret: null,
    previousSecretExpiresAt: null,
    ...fields,
  };
}

const jobOf = (deliveryId: number): WebhookDeliveryJob => ({
  type: 'webhook.deliver',
  subject: `webhook:3:pet:1`,
  deliveryId,
});

function metricsStub(countWebhookDelivery = jest.fn()): MetricsService {
  return {
    observeWebhookDelivery: jest.fn(),
    countWebhookDelivery,
  } as unknown as MetricsService;
}

/** A job handler over `deliveries` (by id), sending with `client`. */
function jobsOver(
  deliveries: DeliveryToSend[],
  client: WebhookHttpClient,
  countDelivery = jest.fn(),
) {
  const recordAttempt = jest.fn(
    (_delivery: DeliveryToSend, _attempt: AttemptRow, _outcome: AttemptOutcome) =>
      Promise.resolve({ disabledSubscription: false }),
  );
  const repository = {
    findToSend: (id: number) => Promise.resolve(deliveries.find((d) => d.id === id)),
    recordAttempt,
  } as unknown as WebhookDeliveriesRepository;
  const sut = new WebhookDeliveryJobs(
    repository,
    client,
    metricsStub(countDelivery),
    {} as Jobs,
    config,
  );
  return { sut, recordAttempt };
}

/** Runs the job of `delivery`, answered with `result`: what it recorded and returned. */
async function attempt(delivery: DeliveryToSend, result: AttemptResult) {
  const post = jest.fn(() => Promise.resolve(result));
  const counted = jest.fn();
  const { sut, recordAttempt } = jobsOver(
    [delivery],
    { post } as unknown as WebhookHttpClient,
    counted,
  );

  const returned = await sut.deliver(jobOf(delivery.id));

  expect(recordAttempt).toHaveBeenCalledTimes(1);
  const [, record, outcome] = recordAttempt.mock.calls[0];
  return { record, outcome, returned, counted: counted.mock.calls.map(([o]) => o as string) };
}

const failure: AttemptResult = { statusCode: 500, durationMs: 40, error: 'answered with 500' };

describe(WebhookDeliveryJobs.name, () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('should record a 2xx as succeeded, the job done', async () => {
    const { record, outcome, returned, counted } = await attempt(toSend(), {
      statusCode: 204,
      durationMs: 12,
    });

    expect(record).toMatchObject({ statusCode: 204, durationMs: 12, error: null });
    expect(outcome).toEqual({ status: 'succeeded' });
    expect(returned).toBeUndefined();
    expect(counted).toEqual(['succeeded']);
  });

  it('should schedule a failed attempt after a backoff drawn for the attempts made so far, the job run again then', async () => {
    // The third attempt fails: its retry is drawn below 4 × the base; half of it here.
    jest.spyOn(Math, 'random').mockReturnValue(0.5);

    const { record, outcome, returned, counted } = await attempt(toSend({ attempts: 2 }), failure);

    const ended = record.attemptedAt.getTime() + failure.durationMs;
    const nextAttemptAt = new Date(ended + 120_000);
    expect(outcome).toEqual({ status: 'pending', nextAttemptAt });
    expect(returned).toEqual({ retryAt: nextAttemptAt });
    expect(counted).toEqual(['retrying']);
  });

  it('should mark failed a delivery whose attempt fails 24 hours after its first, the job done', async () => {
    const firstAttemptAt = new Date(Date.now() - 24 * HOUR);

    const { outcome, returned, counted } = await attempt(
      toSend({ attempts: 30, firstAttemptAt }),
      failure,
    );

    expect(outcome).toEqual({ status: 'failed' });
    expect(returned).toBeUndefined();
    expect(counted).toEqual(['failed']);
  });

  it('should give a first attempt its 24 hours of retries, however long the delivery waited', async () => {
    const { outcome } = await attempt(toSend({ attempts: 0, firstAttemptAt: null }), failure);

    expect(outcome).toEqual({ status: 'pending', nextAttemptAt: expect.any(Date) });
  });

  it('should end without sending for a delivery that ended, was deleted, or whose subscription is disabled', async () => {
    const post = jest.fn();
    const { sut, recordAttempt } = jobsOver(
      [toSend({ id: 1, status: 'succeeded' }), toSend({ id: 2, enabled: false })],
      { post } as unknown as WebhookHttpClient,
    );

    for (const id of [1, 2, 3]) expect(await sut.deliver(jobOf(id))).toBeUndefined();

    expect(post).not.toHaveBeenCalled();
    expect(recordAttempt).not.toHaveBeenCalled();
  });

  it('should run again at its next attempt a job whose delivery is not due yet', async () => {
    const post = jest.fn();
    const nextAttemptAt = new Date(Date.now() + 60_000);
    const { sut } = jobsOver([toSend({ notDueYet: true, nextAttemptAt })], {
      post,
    } as unknown as WebhookHttpClient);

    expect(await sut.deliver(jobOf(7))).toEqual({ retryAt: nextAttemptAt });

    expect(post).not.toHaveBeenCalled();
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
    // Two pets' deliveries to the dead host, run at once with the live one, as a lane runs them.
    const { sut, recordAttempt } = jobsOver(
      [
        toSend({ id: 1, subscriptionId: 1, url: 'http://dead.test/hook' }),
        toSend({ id: 2, subscriptionId: 1, url: 'http://dead.test/hook' }),
        toSend({ id: 3, subscriptionId: 2, url: live }),
      ],
      client,
    );
    const recordOf = (id: number) => recordAttempt.mock.calls.find(([d]) => d.id === id);

    const runs = [1, 2, 3].map((id) => sut.deliver(jobOf(id)));
    try {
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
      await Promise.allSettled(runs);
      for (const answer of held) answer(Object.assign(new Error('gave up'), { code: 'ENOTFOUND' }));
      await client.close();
      receiver.close();
    }
  });
});
