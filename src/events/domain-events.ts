import { Injectable } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { afterCommit, type TxHost } from '../database/transactions.js';
import type { DomainEvent } from './domain-event.js';
import { OutboxHandlers } from './outbox-handlers.js';
import { OutboxWorker } from './outbox-worker.js';
import { OutboxRepository } from './outbox.repository.js';

/** How a change says what happened (docs/events.md, "Domain events"). */
@Injectable()
export class DomainEvents {
  constructor(
    private readonly emitter: EventEmitter2,
    private readonly handlers: OutboxHandlers,
    private readonly outbox: OutboxRepository,
    private readonly worker: OutboxWorker,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * Publishes `events`, in order, inside the change's transaction: runs each `@OnDomainEvent`
   * handler (a throw fails the change), then writes one outbox row per event and
   * `@OutboxHandler` consumer (for a gated consumer, only if a subscriber wants the type),
   * which the worker hands over once the transaction has committed. Outside a transaction,
   * refused: the events would not commit with the change.
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
      this.handlers
        .consumersOf(event.type)
        .map((consumer) => ({ consumer, event, gated: this.handlers.isGated(consumer) })),
    );
    if (messages.length === 0) return;
    const written = await this.outbox.add(messages, { delayMs });
    if (written.length > 0) afterCommit(() => this.worker.nudge());
  }
}
