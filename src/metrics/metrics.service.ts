import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { routeOf } from '../common/http/route-label.js';
import { observabilityConfig, type ObservabilityConfig } from '../config/observability.config.js';

/** What pg's Pool reports about itself. */
interface PoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const IMAGE_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
// An attempt ends by the 10 s total timeout at the latest.
const WEBHOOK_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** What a recorded webhook attempt led to. */
export type WebhookDeliveryOutcome = 'succeeded' | 'retrying' | 'failed';
/** What an outbox handler's attempt led to (see WebhookDeliveryOutcome). */
export type OutboxOutcome = WebhookDeliveryOutcome;

/**
 * The service's Prometheus metrics. Each app has a registry of its own, so several apps in
 * one process (tests) do not share series. Nothing is recorded unless METRICS_ENABLED.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly enabled: boolean;

  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly rateLimitRefusals = new Counter({
    name: 'petstore_rate_limit_refusals_total',
    help: 'Requests refused with 429, by caller tier and exhausted window',
    labelNames: ['tier', 'window'] as const,
    registers: [this.registry],
  });
  private readonly rateLimitFallbacks = new Counter({
    name: 'petstore_rate_limit_fallbacks_total',
    help: "Rate-limit and login lock-out counts made in this instance's memory because Redis was unreachable",
    registers: [this.registry],
  });
  private readonly readinessChecks = new Counter({
    name: 'petstore_readiness_checks_total',
    help: 'Readiness checks run (database, Redis, storage), by outcome; probes answered from a recent success run none',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly imageProcessing = new Histogram({
    name: 'petstore_image_processing_seconds',
    help: 'Time to decode and resize one uploaded image into its two renditions, queue wait excluded',
    buckets: IMAGE_BUCKETS,
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'petstore_webhook_deliveries_total',
    help: 'Webhook delivery attempts recorded, by outcome: succeeded, retrying (failed, another attempt scheduled), failed (failed, given up after 24 h)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly webhookDeliverySeconds = new Histogram({
    name: 'petstore_webhook_delivery_seconds',
    help: 'Time of one webhook delivery attempt, from sending until the response or the error',
    buckets: WEBHOOK_BUCKETS,
    registers: [this.registry],
  });
  private readonly outboxMessages = new Counter({
    name: 'petstore_outbox_messages_total',
    help: 'Outbox messages handed to their consumer, by consumer and outcome: succeeded, retrying (the handler threw, another attempt scheduled), failed (kept, every attempt failed)',
    labelNames: ['consumer', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly mails = new Counter({
    name: 'petstore_mails_total',
    help: 'Mails handed to the SMTP server (or written to a file without one), by template and outcome: sent, failed (refused or unreachable; the outbox retries)',
    labelNames: ['template', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly outboxHandlerSeconds = new Histogram({
    name: 'petstore_outbox_handler_seconds',
    help: 'Time of one outbox handler call (a batch of messages), by consumer',
    labelNames: ['consumer'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  private readonly outboxRunning = new Gauge({
    name: 'petstore_outbox_messages_running',
    help: "Outbox messages (events and jobs) whose consumer's handler runs on this instance, by consumer",
    labelNames: ['consumer'] as const,
    registers: [this.registry],
  });
  /** Counts the messages still to hand over, by consumer; set by the outbox worker. */
  private queuedOutboxMessages?: () => Promise<{ consumer: string; count: number }[]>;

  private readonly auditEvents = new Counter({
    name: 'petstore_audit_events_total',
    help: 'Audit log entries recorded (committed), by action and outcome',
    labelNames: ['action', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(
    @Inject(observabilityConfig.KEY) config: ObservabilityConfig,
    @InjectDataSource() dataSource: DataSource,
  ) {
    this.enabled = config.metricsEnabled;
    if (!this.enabled) return;
    collectDefaultMetrics({ register: this.registry });
    const pool = (dataSource.driver as unknown as { master?: PoolStats }).master;
    new Gauge({
      name: 'petstore_db_pool_connections',
      help: 'Database pool connections, by state (in_use, idle)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        if (!pool) return;
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
      },
    });
    // Read at each scrape: one statement per scrape, none per message.
    const queued = () => this.queuedOutboxMessages?.() ?? Promise.resolve([]);
    new Gauge({
      name: 'petstore_outbox_messages_queued',
      help: 'Outbox messages (events and jobs) not yet handed over, due or later, failed ones left out, by consumer',
      labelNames: ['consumer'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        // An unreachable database leaves the series out rather than failing the scrape.
        const counts = await queued().catch(() => []);
        for (const { consumer, count } of counts) this.set({ consumer }, count);
      },
    });
    new Gauge({
      name: 'petstore_db_pool_waiting',
      help: 'Queries waiting for a free pool connection',
      registers: [this.registry],
      collect() {
        if (pool) this.set(pool.waitingCount);
      },
    });
  }

  /** Express middleware recording every response's count and latency. */
  observeRequests() {
    return (req: Request, res: Response, next: NextFunction): void => {
      const stopTimer = this.latency.startTimer();
      res.once('close', () => {
        const labels = { method: req.method, route: routeOf(req), status: String(res.statusCode) };
        this.requests.inc(labels);
        stopTimer(labels);
      });
      next();
    };
  }

  countRateLimitRefusal(tier: string, window: string): void {
    if (this.enabled) this.rateLimitRefusals.inc({ tier, window });
  }

  countRateLimitFallback(): void {
    if (this.enabled) this.rateLimitFallbacks.inc();
  }

  countReadinessCheck(ready: boolean): void {
    if (this.enabled) this.readinessChecks.inc({ outcome: ready ? 'ready' : 'not_ready' });
  }

  /** Recorded by media's ImageProcessor for every image it decodes, refused ones included. */
  observeImageProcessing(seconds: number): void {
    if (this.enabled) this.imageProcessing.observe(seconds);
  }

  /** Recorded by a webhook delivery's job for every attempt whose outcome it recorded. */
  countWebhookDelivery(outcome: WebhookDeliveryOutcome): void {
    if (this.enabled) this.webhookDeliveries.inc({ outcome });
  }

  observeWebhookDelivery(seconds: number): void {
    if (this.enabled) this.webhookDeliverySeconds.observe(seconds);
  }

  /** Recorded by the outbox worker for the messages of each batch whose outcome it recorded. */
  countOutboxMessages(consumer: string, outcome: OutboxOutcome, count: number): void {
    if (this.enabled && count > 0) this.outboxMessages.inc({ consumer, outcome }, count);
  }

  /** Recorded by the outbox worker around each handler call: `delta` messages start or end. */
  countOutboxRunning(consumer: string, delta: number): void {
    if (this.enabled) this.outboxRunning.inc({ consumer }, delta);
  }

  /** Where the queued messages' gauge reads its counts at each scrape. */
  countOutboxQueuedWith(source: () => Promise<{ consumer: string; count: number }[]>): void {
    this.queuedOutboxMessages = source;
  }

  /** Recorded by MailService for each mail it tried to send. */
  countMail(template: string, outcome: 'sent' | 'failed'): void {
    if (this.enabled) this.mails.inc({ template, outcome });
  }

  /** Recorded by the outbox worker for each call of a consumer's handler (one batch). */
  observeOutboxHandler(consumer: string, seconds: number): void {
    if (this.enabled) this.outboxHandlerSeconds.observe({ consumer }, seconds);
  }

  /** Recorded by the audit log for each entry once it is stored. */
  countAuditEvent(action: string, outcome: string): void {
    if (this.enabled) this.auditEvents.inc({ action, outcome });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
