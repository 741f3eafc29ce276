import { randomBytes } from 'node:crypto';
import type { DomainEventBase } from '../events/domain-event.js';
import { toAdoptionResponse } from './adoption.mapper.js';
import type { AdoptionMove } from './adoption-status.js';
import type { AdoptionRow } from './adoptions.repository.js';
import type { AdoptionResponse } from './dto/adoption-response.dto.js';

/** What an adoption's change publishes (docs/events.md), one type per move and the request. */
export const ADOPTION_EVENT_TYPES = [
  'adoption.requested',
  'adoption.approved',
  'adoption.completed',
  'adoption.rejected',
  'adoption.cancelled',
  'adoption.expired',
  'adoption.returned',
  'adoption.extended',
] as const;
export type AdoptionEventType = (typeof ADOPTION_EVENT_TYPES)[number];

/** The events webhooks send (contract section 9): every one but the hold's extension. */
export const ADOPTION_WEBHOOK_EVENT_TYPES = [
  'adoption.requested',
  'adoption.approved',
  'adoption.completed',
  'adoption.rejected',
  'adoption.cancelled',
  'adoption.expired',
  'adoption.returned',
] as const satisfies readonly AdoptionEventType[];
export type AdoptionWebhookEventType = (typeof ADOPTION_WEBHOOK_EVENT_TYPES)[number];

export const EVENT_OF_MOVE: Record<AdoptionMove, AdoptionEventType> = {
  approve: 'adoption.approved',
  complete: 'adoption.completed',
  reject: 'adoption.rejected',
  cancel: 'adoption.cancelled',
  return: 'adoption.returned',
  extend: 'adoption.extended',
  expire: 'adoption.expired',
};

/** An adoption as an event carries it: dates as ISO strings (events are JSON). */
export interface AdoptionSnapshot {
  id: number;
  petId: number;
  adopterId: number | null;
  status: AdoptionRow['status'];
  holdExpiresAt: string | null;
  decidedById: number | null;
  reason: string | null;
}

/**
 * A change of an adoption (subject `adoption:<id>`): the request or a move, by whom (null:
 * the hold's expiry), and the adoption after it.
 */
export interface AdoptionEvent extends DomainEventBase {
  type: AdoptionEventType;
  /** Stable id (`evt_` + 32 hex), the same on every delivery (Standard Webhooks' `webhook-id`). */
  id: string;
  adoptionId: number;
  /** ISO 8601, UTC: when the change was written (the adoption's `updatedAt`). */
  occurredAt: string;
  /** The move made; undefined for the request. */
  move?: AdoptionMove;
  actorUserId: number | null;
  /** Made by staff (`user` or `admin`): the audit log records it. */
  byStaff: boolean;
  adoption: AdoptionSnapshot;
  /** The adoption after it as the API shows it: what a webhook's `data` is. */
  body: AdoptionResponse;
}

declare module '../events/domain-event.js' {
  interface DomainEventMap {
    'adoption.requested': AdoptionEvent;
    'adoption.approved': AdoptionEvent;
    'adoption.completed': AdoptionEvent;
    'adoption.rejected': AdoptionEvent;
    'adoption.cancelled': AdoptionEvent;
    'adoption.expired': AdoptionEvent;
    'adoption.returned': AdoptionEvent;
    'adoption.extended': AdoptionEvent;
  }
}

export const adoptionSubject = (id: number) => `adoption:${id}`;

export function adoptionEvent(
  type: AdoptionEventType,
  row: AdoptionRow,
  actor: { userId: number | null; byStaff: boolean },
  move?: AdoptionMove,
): AdoptionEvent {
  return {
    type,
    subject: adoptionSubject(row.id),
    id: `evt_${randomBytes(16).toString('hex')}`,
    adoptionId: row.id,
    occurredAt: row.updatedAt.toISOString(),
    move,
    actorUserId: actor.userId,
    byStaff: actor.byStaff,
    adoption: {
      id: row.id,
      petId: row.petId,
      adopterId: row.adopterId,
      status: row.status,
      holdExpiresAt: row.holdExpiresAt?.toISOString() ?? null,
      decidedById: row.decidedById,
      reason: row.reason,
    },
    body: toAdoptionResponse(row),
  };
}
