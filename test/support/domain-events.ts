import { EventEmitter2 } from '@nestjs/event-emitter';
import type { TxHost } from '../../src/database/transactions.js';
import type { DomainEvent } from '../../src/events/domain-event.js';
import { DomainEvents } from '../../src/events/domain-events.js';

type Dependencies = ConstructorParameters<typeof DomainEvents>;

/**
 * The real DomainEvents over an EventEmitter2 of its own, for unit tests, with no outbox
 * consumer (the outbox's writes are never reached): each published
 * event is logged by its type and kept in `published`, in order.
 */
export function recordingDomainEvents(txHost: TxHost, log: (entry: string) => void = () => {}) {
  const emitter = new EventEmitter2();
  const published: DomainEvent[] = [];
  emitter.onAny((type, event) => {
    log(String(type));
    published.push(event as DomainEvent);
  });
  const events = new DomainEvents(
    emitter,
    { consumersOf: () => [] } as unknown as Dependencies[1],
    {} as Dependencies[2],
    txHost,
  );
  return { events, emitter, published };
}
