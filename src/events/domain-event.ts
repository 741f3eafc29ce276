/*
 * Domain events (docs/events.md, "Domain events"): what a change publishes, inside its
 * transaction, for the modules that react to it. Each feature declares its own events by
 * adding them to DomainEventMap (declaration merging), so that this folder names none.
 */

/** Every event has a type and the subject it is about. */
export interface DomainEventBase {
  type: string;
  /**
   * The thing changed, such as `pet:12`. The outbox hands a subject's events to each consumer
   * one at a time, in the order they were published.
   */
  subject: string;
}

/**
 * Every domain event, by type. A feature adds its own:
 * `declare module '../events/domain-event.js' { interface DomainEventMap { 'pet.created': PetEvent } }`.
 * Events are plain JSON values (dates as ISO strings): durable handlers get them back from
 * the outbox table as they were published.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the features
export interface DomainEventMap {}

export type DomainEventType = keyof DomainEventMap;

/** Each event of the map extends DomainEventBase. */
export type DomainEvent<T extends DomainEventType = DomainEventType> = DomainEventMap[T];
