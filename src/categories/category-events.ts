import type { DomainEventBase } from '../events/domain-event.js';
import type { Category } from './category.entity.js';

export type CategoryEventType = 'category.created' | 'category.updated' | 'category.deleted';

/** A category's fields as an event carries them. */
export type CategorySnapshot = Pick<Category, 'id' | 'name' | 'description'>;

/**
 * A change of a category (subject `category:<id>`): the category before it (null for a
 * creation) and after it (null for a deletion).
 */
export interface CategoryEvent extends DomainEventBase {
  type: CategoryEventType;
  categoryId: number;
  before: CategorySnapshot | null;
  after: CategorySnapshot | null;
}

declare module '../events/domain-event.js' {
  interface DomainEventMap {
    'category.created': CategoryEvent;
    'category.updated': CategoryEvent;
    'category.deleted': CategoryEvent;
  }
}

const snapshotOf = ({ id, name, description }: Category): CategorySnapshot => ({
  id,
  name,
  description,
});

/** The category before and after the change: a creation has no before, a deletion no after. */
type Change = { before: Category; after: Category | null } | { before: null; after: Category };

export function categoryEvent(type: CategoryEventType, change: Change): CategoryEvent {
  const { before, after } = change;
  const categoryId = change.before === null ? change.after.id : change.before.id;
  return {
    type,
    subject: `category:${categoryId}`,
    categoryId,
    before: before && snapshotOf(before),
    after: after && snapshotOf(after),
  };
}
