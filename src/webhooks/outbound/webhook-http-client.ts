import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Inject, Injectable, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { context, propagation, type Span } from '@opentelemetry/api';
import { Agent, buildConnector, request } from 'undici';
import { webhooksConfig, type WebhooksConfig } from '../../config/webhooks.config.js';
import { inSpan, SpanKind, SpanStatusCode } from '../../tracing/tracer.js';
import { dnsFailure, refusedKind, resolvedAddressesRefusal } from './address-policy.js';
import { BoundedLookup, LookupTimeoutError, systemLookup } from './bounded-lookup.js';

/** One attempt's outcome; `error` is set exactly when the attempt failed. */
export interface AttemptResult {
  statusCode?: number;
  durationMs: number;
  /** A short sentence for people: "connection refused", "timed out after 10 s". */
  error?: string;
  /** The first bytes of the response body, decoded as UTF-8; omitted when empty. */
  responseBody?: string;
}

const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': 'petstore-webhooks/1',
  'content-type': 'application/json',
};

/** Carries the policy's reason through net and undici to the attempt's error. */
class AddressRefusedError extends Error {
  readonly code = 'ERR_WEBHOOK_ADDRESS_REFUSED';
}

class DnsFailureError extends Error {
  readonly code = 'ERR_WEBHOOK_DNS_FAILURE';
}

/**
 * Sends webhook requests through an undici Agent of its own, so every connection it opens is
 * held to the address policy: the host's resolved addresses before connecting, and the
 * connected peer's address after (an IP literal is judged there, and DNS may have changed its
 * answer since the subscription was checked). No redirects, no cookies, bounded time and
 * bounded response size.
 */
@Injectable()
export class WebhookHttpClient implements OnApplicationShutdown {
  private readonly agent: Agent;
  private closing?: Promise<void>;

  /** `lookup` is the process's bounded one but in tests; nothing provides another. */
  constructor(
    @Inject(webhooksConfig.KEY) private readonly config: WebhooksConfig,
    @Optional() lookup: BoundedLookup = systemLookup,
  ) {
    const allowPrivate = config.allowPrivateAddresses;
    // Part of the connect timeout, so that a stalled lookup's own reason arrives before
    // undici's timeout, whose timer ticks in steps of about half a second.
    const lookupTimeoutMs = Math.round(config.connectTimeoutMs * 0.8);
    const connector = buildConnector({
      timeout: config.connectTimeoutMs,
      lookup: guardedLookup(lookup, lookupTimeoutMs, allowPrivate),
      // HTTP/1.1 only: dropping an over-long body then drops exactly that connection.
      allowH2: false,
    });
    this.agent = new Agent({
      allowH2: false,
      connect: (options, callback) =>
        connector(options, (error, socket) => {
          if (error !== null) return callback(error, null);
          const kind = refusedKind(socket.remoteAddress ?? '', allowPrivate);
          if (kind === undefined) return callback(null, socket);
          socket.destroy();
          callback(new AddressRefusedError(`the connected address is ${kind}`), null);
        }),
    });
  }

  /**
   * POSTs `body` to `url`; never throws: every failure is described in the result. The
   * request is a client span, and carries it as `traceparent` when tracing is on.
   */
  post(url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
    const attributes = { 'http.request.method': 'POST', 'url.full': url };
    return inSpan('POST', { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const sent = withDefaults(headers);
      propagation.inject(context.active(), sent);
      const result = await this.send(url, body, sent);
      recordOutcome(span, result);
      return result;
    });
  }

  private async send(
    url: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let statusCode: number | undefined;
    try {
      const response = await request(url, {
        dispatcher: this.agent,
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(this.config.totalTimeoutMs),
      });
      statusCode = response.statusCode;
      const responseBody = await readAtMost(response.body, this.config.maxStoredResponseBytes);
      const error = statusError(statusCode);
      return {
        statusCode,
        durationMs: elapsed(),
        ...(error !== undefined && { error }),
        ...(responseBody !== undefined && { responseBody }),
      };
    } catch (error) {
      // A status already received is kept: the body is what took too long or broke off.
      return {
        ...(statusCode !== undefined && { statusCode }),
        durationMs: elapsed(),
        error: describeError(error, this.config),
      };
    }
  }

  /**
   * Closes idle connections and waits for requests in flight (each bounded by the timeout).
   * Idempotent: the shutdown hook may follow a caller's own close.
   */
  close(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}

function recordOutcome(span: Span, result: AttemptResult): void {
  if (result.statusCode !== undefined) {
    span.setAttribute('http.response.status_code', result.statusCode);
  }
  if (result.error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
  }
}

/** The caller's headers, plus ours for any it did not set (names compared case-insensitively). */
function withDefaults(headers: Record<string, string>): Record<string, string> {
  const given = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const defaults = Object.entries(DEFAULT_HEADERS).filter(([name]) => !given.has(name));
  return { ...Object.fromEntries(defaults), ...headers };
}

function statusError(statusCode: number): string | undefined {
  if (statusCode >= 200 && statusCode < 300) return undefined;
  if (statusCode >= 300 && statusCode < 400) return `redirect not followed (${statusCode})`;
  return `answered with status ${statusCode}`;
}

/**
 * Reads up to `limit` bytes and stops there: leaving the loop destroys the body, and undici
 * closes the connection rather than read on. NUL becomes U+FFFD, as PostgreSQL text holds none.
 */
async function readAtMost(body: AsyncIterable<Buffer>, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk.subarray(0, limit - size));
    size += chunks[chunks.length - 1].length;
    if (size >= limit) break;
  }
  if (size === 0) return undefined;
  return Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '\uFFFD');
}

/**
 * A net `lookup` through the bounded one, which fails when the host does not resolve in time
 * or any of its addresses is refused by the policy. Net's family and hints are not passed on:
 * one lookup of the host serves every caller, and undici asks for no family.
 */
function guardedLookup(
  bounded: BoundedLookup,
  timeoutMs: number,
  allowPrivate: boolean,
): LookupFunction {
  return (hostname, options, callback) => {
    bounded.lookupAll(hostname, timeoutMs).then(
      (addresses) => answer(hostname, options.all === true, addresses, allowPrivate, callback),
      (error: NodeJS.ErrnoException) => {
        const reason =
          error instanceof LookupTimeoutError ? error.message : dnsFailure(hostname, error.code);
        callback(new DnsFailureError(reason), []);
      },
    );
  };
}

/** Hands net the addresses, or the policy's refusal of them. */
function answer(
  hostname: string,
  all: boolean,
  addresses: LookupAddress[],
  allowPrivate: boolean,
  callback: Parameters<LookupFunction>[2],
): void {
  const refusal =
    addresses.length === 0
      ? dnsFailure(hostname, undefined)
      : resolvedAddressesRefusal(
          hostname,
          addresses.map((entry) => entry.address),
          allowPrivate,
        );
  if (refusal !== undefined) {
    const failure =
      addresses.length === 0 ? new DnsFailureError(refusal) : new AddressRefusedError(refusal);
    return callback(failure, []);
  }
  if (all) return callback(null, addresses);
  callback(null, addresses[0].address, addresses[0].family);
}

const CONNECTION_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection closed by the server',
  UND_ERR_SOCKET: 'connection closed by the server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_DESTROYED: 'not sent: the client is shut down',
  UND_ERR_CLOSED: 'not sent: the client is shut down',
};

/** The errors an attempt can meet, as short sentences; the cause chain is searched for a code. */
function describeError(error: unknown, config: WebhooksConfig): string {
  const seconds = (ms: number) => `${ms / 1000} s`;
  const causes = causeChain(error);
  const ours = causes.find(
    (cause) => cause instanceof AddressRefusedError || cause instanceof DnsFailureError,
  );
  if (ours instanceof AddressRefusedError) return `address refused: ${ours.message}`;
  if (ours !== undefined) return ours.message;
  if (causes.some((cause) => cause.name === 'TimeoutError')) {
    return `timed out after ${seconds(config.totalTimeoutMs)}`;
  }
  const code = causes.map((cause) => cause.code).find((found) => found !== undefined);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') {
    return `connect timed out after ${seconds(config.connectTimeoutMs)}`;
  }
  const known = code === undefined ? undefined : CONNECTION_ERRORS[code];
  if (known !== undefined) return known;
  if (code !== undefined && /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SIGNATURE|ISSUER/.test(code)) {
    return `TLS error (${code})`;
  }
  return `request failed (${code ?? causes[0]?.message ?? 'unknown error'})`;
}

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  cause?: unknown;
  errors?: unknown;
}

/**
 * The error, its causes and an AggregateError's members. Duck-typed: errors raised inside Node
 * come from another realm than this module's `Error` under Jest's VM modules.
 */
function causeChain(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  const pending: unknown[] = [error];
  while (pending.length > 0 && chain.length < 10) {
    const next = pending.shift();
    if (typeof next !== 'object' || next === null) continue;
    const like = next as ErrorLike;
    chain.push(like);
    pending.push(like.cause);
    if (Array.isArray(like.errors)) pending.push(...(like.errors as unknown[]));
  }
  return chain;
}
