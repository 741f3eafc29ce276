export const ADOPTION_STATUSES = [
  'requested',
  'approved',
  'completed',
  'rejected',
  'cancelled',
  'expired',
  'returned',
] as const;
export type AdoptionStatus = (typeof ADOPTION_STATUSES)[number];

/** An open adoption holds its pet (`pending`); one pet has at most one. */
export const OPEN_ADOPTION_STATUSES = ['requested', 'approved'] as const satisfies AdoptionStatus[];

export const ADOPTION_MOVES = [
  'approve',
  'complete',
  'reject',
  'cancel',
  'return',
  'extend',
  'expire',
] as const;
export type AdoptionMove = (typeof ADOPTION_MOVES)[number];

/** The moves a request may name; `expire` is the hold's own. */
export type RequestedMove = Exclude<AdoptionMove, 'expire'>;

interface MoveRule {
  from: readonly AdoptionStatus[];
  /** Undefined: the adoption keeps its status (extend). */
  to?: AdoptionStatus;
  /** Undefined: the pet keeps its status. */
  pet?: { from: 'pending' | 'sold'; to: 'available' | 'sold' };
}

/** The adoption's machine: contract section 9, "Adoptions", as one table. */
export const MOVES: Record<AdoptionMove, MoveRule> = {
  approve: { from: ['requested'], to: 'approved' },
  complete: {
    from: ['approved'],
    to: 'completed',
    pet: { from: 'pending', to: 'sold' },
  },
  reject: {
    from: OPEN_ADOPTION_STATUSES,
    to: 'rejected',
    pet: { from: 'pending', to: 'available' },
  },
  cancel: {
    from: OPEN_ADOPTION_STATUSES,
    to: 'cancelled',
    pet: { from: 'pending', to: 'available' },
  },
  return: {
    from: ['completed'],
    to: 'returned',
    pet: { from: 'sold', to: 'available' },
  },
  extend: { from: OPEN_ADOPTION_STATUSES },
  expire: {
    from: OPEN_ADOPTION_STATUSES,
    to: 'expired',
    pet: { from: 'pending', to: 'available' },
  },
};

export function isOpen(status: AdoptionStatus): boolean {
  return (OPEN_ADOPTION_STATUSES as readonly AdoptionStatus[]).includes(status);
}

/** The statuses an adoption in `from` can move to by a request. */
export function allowedNextStatuses(from: AdoptionStatus): AdoptionStatus[] {
  const next = Object.entries(MOVES)
    .filter(([move, rule]) => move !== 'expire' && rule.from.includes(from))
    .map(([, rule]) => rule.to ?? from);
  return [...new Set(next)];
}
