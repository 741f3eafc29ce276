import { SpanKind, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';

const REDACTED = 'REDACTED';

/**
 * Keeps tokens out of spans' URLs, whichever instrumentation wrote them, before any other
 * processor sees the span. A client span (a webhook delivery) keeps only the receiver's
 * origin: its path and query are the subscriber's, and often hold its own token. Any other
 * span keeps its path and its query's names, every value replaced: mailed links carry reset
 * and verification tokens there (`?token=`), and a collector keeps spans longer, and shows
 * them to more people, than the service keeps the tokens.
 */
export class UrlRedactingSpanProcessor implements SpanProcessor {
  onStart(span: Span, _parentContext: Context): void {
    const full = span.attributes['url.full'];
    if (typeof full === 'string') {
      span.setAttribute(
        'url.full',
        span.kind === SpanKind.CLIENT ? originOf(full) : redacted(full),
      );
    }
    const query = span.attributes['url.query'];
    if (typeof query === 'string') span.setAttribute('url.query', redactedQuery(query));
  }

  onEnd(_span: ReadableSpan): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : REDACTED;
}

/** An absolute URL or a path, with its query's values replaced. */
function redacted(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url.split('#')[0];
  return `${url.slice(0, start)}?${redactedQuery(url.slice(start + 1))}`;
}

function redactedQuery(query: string): string {
  const names = [...new URLSearchParams(query.split('#')[0]).keys()];
  return names.map((name) => `${encodeURIComponent(name)}=${REDACTED}`).join('&');
}
