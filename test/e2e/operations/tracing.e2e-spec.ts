import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { OtlpSink } from '../../../bench/otlp-sink.js';
import { AppProcess } from '../../support/app-process.js';
import { jpegImage } from '../../support/images.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitFor } from '../../support/wait.js';
import { FAST_DELIVERY, WebhookReceiver } from '../../support/webhook-receiver.js';

jest.setTimeout(180_000);

/** Spans as test/support/tracing-preload.js writes them, one JSON line each. */
interface SpanLine {
  name: string;
  /** SpanKind: 1 server, 2 client. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  scope: string;
}

const SERVER = 1;
const CLIENT = 2;
const TRACING_PRELOAD = resolve(import.meta.dirname, '../../support/tracing-preload.js');
const JSON_BODY = { 'content-type': 'application/json' };

/** A W3C traceparent of a caller's own (sampled), and its ids. */
function callerTrace() {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

async function post<T>(app: AppProcess, path: string, body: object): Promise<T> {
  const res = await app.fetch(path, {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

// The service keeps an idle connection longer than any pause between this file's requests
// (they wait for spans and deliveries): the client then ends idle connections, and no request
// goes out on one the service is closing, which fails a POST ("other side closed", once in CI).
const SERVICE_ENV = { ...FAST_DELIVERY, HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000' };

/** A subscription to pet.created on `name`'s path, then a pet: one delivery to wait for. */
async function deliverOnePet(app: AppProcess, receiver: WebhookReceiver, name: string) {
  await post(app, '/v1/webhooks', { url: receiver.url(name), events: ['pet.created'] });
  const category = await post<{ id: number }>(app, '/v1/categories', { name: `C ${randomUUID()}` });
  await post(app, '/v1/pets', { name: 'Rex', categoryId: category.id, status: 'available' });
  await waitFor(() => Promise.resolve(receiver.to(name).length > 0), 30_000);
  return receiver.to(name)[0];
}

/** The request lines (pino-http's) the service logged for `path`. */
const requestLines = (app: AppProcess, path: string) =>
  app.logs().filter((line) => line.path === path && typeof line.status === 'number');

describe('Tracing (e2e, the built service)', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  describe('with tracing on (the service tracing setup, spans kept in memory)', () => {
    let app: AppProcess;
    let spansFile: string;
    const redisUrl = process.env.REDIS_URL;

    const spans = async (): Promise<SpanLine[]> => {
      const text = await readFile(spansFile, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as SpanLine);
    };
    /** Waits until a span matching `match` has ended, and returns it. */
    const spanWhere = async (match: (span: SpanLine) => boolean): Promise<SpanLine> => {
      await waitFor(async () => (await spans()).some(match), 15_000);
      return (await spans()).find(match)!;
    };

    beforeAll(async () => {
      database = await createTestDatabase();
      spansFile = join(database.env.DATA_DIR, 'spans.jsonl');
      app = await AppProcess.start({
        ...database.env,
        ...SERVICE_ENV,
        REDIS_URL: redisUrl,
        NODE_OPTIONS: `--import=${TRACING_PRELOAD}`,
        TRACING_TEST_SPANS_FILE: spansFile,
      });
    });
    afterAll(async () => {
      await app?.stop();
      await database?.drop();
    });

    it('should continue the caller’s trace: server span, Nest handler and pg spans, and the request’s log line', async () => {
      const caller = callerTrace();
      const res = await app.fetch('/v1/pets?limit=5', {
        headers: { traceparent: caller.traceparent },
      });
      expect(res.status).toBe(200);

      const server = await spanWhere(
        (span) => span.kind === SERVER && span.traceId === caller.traceId,
      );
      expect(server).toMatchObject({
        name: 'GET /v1/pets',
        parentSpanId: caller.parentId,
        scope: '@opentelemetry/instrumentation-http',
      });
      const handler = await spanWhere(
        (span) => span.name === 'PetsController.list' && span.traceId === caller.traceId,
      );
      expect(handler.scope).toBe('@opentelemetry/instrumentation-nestjs-core');
      const query = await spanWhere(
        (span) => span.name.startsWith('pg.query') && span.traceId === caller.traceId,
      );
      expect(query.attributes['db.system.name'] ?? query.attributes['db.system']).toBe(
        'postgresql',
      );

      const [line] = requestLines(app, '/v1/pets');
      expect(line).toMatchObject({ trace_id: caller.traceId, span_id: expect.any(String) });
    });

    it(
      redisUrl
        ? 'should trace the rate limiter’s Redis commands within the request (REDIS_URL set)'
        : 'should make no Redis span where no Redis is configured (REDIS_URL unset)',
      async () => {
        const caller = callerTrace();
        const res = await app.fetch('/v1/categories', {
          headers: { traceparent: caller.traceparent },
        });
        expect(res.status).toBe(200);
        await spanWhere((span) => span.kind === SERVER && span.traceId === caller.traceId);
        const redis = (await spans()).filter(
          (span) => span.scope === '@opentelemetry/instrumentation-ioredis',
        );
        if (redisUrl) {
          expect(redis.some((span) => span.traceId === caller.traceId)).toBe(true);
        } else {
          expect(redis).toEqual([]);
        }
      },
    );

    it('should trace an upload’s image processing (sharp) within the upload request', async () => {
      const category = await post<{ id: number }>(app, '/v1/categories', {
        name: `C ${randomUUID()}`,
      });
      const pet = await post<{ id: number }>(app, '/v1/pets', {
        name: 'Pic',
        categoryId: category.id,
        status: 'available',
      });
      const form = new FormData();
      form.append(
        'image',
        new Blob([new Uint8Array(await jpegImage(64, 48))], { type: 'image/jpeg' }),
        'a.jpg',
      );
      const caller = callerTrace();
      const res = await app.fetch(`/v1/pets/${pet.id}/upload-image`, {
        method: 'POST',
        headers: { traceparent: caller.traceparent },
        body: form,
      });
      expect(res.status).toBe(201);

      const render = await spanWhere(
        (span) => span.name === 'image.render' && span.traceId === caller.traceId,
      );
      expect(render.attributes).toMatchObject({ 'image.format': 'jpeg' });
    });

    it('should send traceparent on a webhook delivery, naming the delivering span', async () => {
      const delivery = await deliverOnePet(app, receiver, 'traced');

      const [version, traceId, parentId, flags] = String(delivery.headers.traceparent).split('-');
      expect([version, flags]).toEqual(['00', '01']);
      const client = await spanWhere((span) => span.spanId === parentId);
      expect(client).toMatchObject({
        name: 'POST',
        kind: CLIENT,
        traceId,
        attributes: {
          'url.full': new URL(receiver.url('traced')).origin,
          'http.response.status_code': 204,
        },
      });
      expect(JSON.stringify(client.attributes)).not.toContain('/traced');
    });

    it('should redact every query value in a server span, where mailed links carry tokens', async () => {
      const caller = callerTrace();
      // The console's reset link, as mailed.
      const res = await app.fetch('/console/reset-password?lang=en&token=leaked-reset-token', {
        headers: { traceparent: caller.traceparent },
      });
      expect(res.status).toBe(200);

      const server = await spanWhere(
        (span) => span.kind === SERVER && span.traceId === caller.traceId,
      );
      expect(server.attributes['url.query']).toBe('lang=REDACTED&token=REDACTED');
      const traced = JSON.stringify(
        (await spans()).filter((span) => span.traceId === caller.traceId),
      );
      expect(traced).not.toContain('leaked-reset-token');
    });
  });

  describe('with tracing off (npm start, no OTEL_ variable)', () => {
    let app: AppProcess;

    beforeAll(async () => {
      database = await createTestDatabase();
      app = await AppProcess.start({ ...database.env, ...SERVICE_ENV }, 'start');
    });
    afterAll(async () => {
      await app?.stop();
      await database?.drop();
    });

    it('should send no traceparent and log no trace_id, even for a request that sent one', async () => {
      const caller = callerTrace();
      const res = await app.fetch('/v1/pets', { headers: { traceparent: caller.traceparent } });
      expect(res.status).toBe(200);
      const delivery = await deliverOnePet(app, receiver, 'untraced');

      expect(delivery.headers.traceparent).toBeUndefined();
      // GET /v1/pets, then the POST that created the delivered pet.
      expect(requestLines(app, '/v1/pets')).toHaveLength(2);
      expect(app.logs().filter((line) => 'trace_id' in line || 'span_id' in line)).toEqual([]);
    });
  });

  describe('with OTEL_EXPORTER_OTLP_ENDPOINT set (npm start, exporting to a collector)', () => {
    let app: AppProcess;
    let collector: OtlpSink;

    beforeAll(async () => {
      database = await createTestDatabase();
      collector = await OtlpSink.start();
      app = await AppProcess.start(
        { ...database.env, ...SERVICE_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
        'start',
      );
    });
    afterAll(async () => {
      await app?.stop();
      await collector?.stop();
      await database?.drop();
    });

    it('should trace from the preload alone: traceparent sent, trace_id logged, spans exported over OTLP', async () => {
      const delivery = await deliverOnePet(app, receiver, 'exported');
      const [, traceId] = String(delivery.headers.traceparent).split('-');
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const [line] = requestLines(app, '/v1/pets');
      expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);

      // Batched: sent within the processor's delay (5 s by default).
      await waitFor(() => Promise.resolve(collector.requests.length > 0), 30_000);
      expect(collector.requests[0]).toMatchObject({
        path: '/v1/traces',
        contentType: 'application/x-protobuf',
      });
    });
  });
});
