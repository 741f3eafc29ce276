import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../database/transactions.js';
import type { DomainEvent } from './domain-event.js';
import { OutboxHandlers } from './outbox-handlers.js';
import { OutboxWrites } from './outbox-writes.js';

/** How a change says what happened (docs/events.md, "Domain events"). */
@Injectable()
export class DomainEvents {
  constructor(
    private readonly emitter: EventEmitter2,
    private readonly handlers: OutboxHandlers,
    private readonly writes: OutboxWrites,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * Publishes `events`, in order, inside the change's transaction: runs each `@OnDomainEvent`
   * handler (a throw fails the change), then adds one outbox row per event and
   * `@OutboxHandler` consumer (for a gated consumer, only if a subscriber wants the type) to
   * the transaction's, written before it commits (OutboxWrites), which the worker hands over
   * once it has committed. Outside a transaction, refused: the events would not commit with
   * the change.
   */
  async publish(...events: DomainEvent[]): Promise<void> {
    await this.publishAfter(0, ...events);
  }

  /**
   * Publishes `events` as `publish` does, their consumers handed them no sooner than
   * `delayMs` after the commit: for work that must wait for something to free up, such as
   * a mail quota (docs/identity.md, "Mail limit").
   */
  async publishAfter(delayMs: number, ...events: DomainEvent[]): Promise<void> {
    if (!this.txHost.isTransactionActive()) {
      throw new Error('DomainEvents.publish() outside a transaction');
    }
    for (const event of events) await this.emitter.emitAsync(event.type, event);
    const messages = events.flatMap((event) =>
      this.handlers.consumersOf(event.type).map((consumer) => ({
        consumer,
        event,
        gated: this.handlers.isGated(consumer),
        due: { delayMs },
      })),
    );
    if (messages.length > 0) await this.writes.add(messages);
  }
}
