import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type AdoptionStatus,
  MOVES,
  type RequestedMove,
} from '../../../src/adoptions/adoption-status.js';
import {
  type Adoption,
  api,
  ApiError,
  isEditConflict,
  ok,
  okVersioned,
  type Versioned,
} from '../api';
import { type Session } from '../session';
import { ErrorAlert, Field, formatDate, formErrors, useLoad, useSubmit } from '../ui';

export function AdoptionStatusBadge({ status }: { status: AdoptionStatus }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}

/** The time now, again every `everyMs`: for text that counts down. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** "2 days 5 hours", "3 hours 10 minutes", "4 minutes": rounded up to the minute. */
function durationText(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (days > 0) {
    return hours > 0 ? `${plural(days, 'day')} ${plural(hours, 'hour')}` : plural(days, 'day');
  }
  if (hours > 0) {
    const rest = minutes % 60;
    return rest > 0 ? `${plural(hours, 'hour')} ${plural(rest, 'minute')}` : plural(hours, 'hour');
  }
  return plural(minutes, 'minute');
}

/** How long an open adoption still holds its pet, counting down each minute. */
export function HoldCountdown({ until }: { until: string }) {
  const now = useNow(60_000);
  const left = Date.parse(until) - now;
  return (
    <span class="hold">
      {left > 0 ? `Hold ends in ${durationText(left)}` : 'Hold ended: it expires within a minute'}{' '}
      <span class="hint nowrap">
        (<time dateTime={until}>{formatDate(until)}</time>)
      </span>
    </span>
  );
}

/** An adoption outlives its adopter's account (docs/adoptions.md). */
export const adopterName = (adoption: Adoption): string =>
  adoption.adopter?.username ?? 'a deleted account';

/** What each move says: its button, the dialog's question and button, what happens to the pet. */
const MOVE_TEXT: Record<
  RequestedMove,
  {
    button: string;
    question: (pet: string, adopter: string) => string;
    confirm: string;
    effect: string;
  }
> = {
  approve: {
    button: 'Approve',
    question: (pet, adopter) => `Approve ${adopter}’s adoption of ${pet}?`,
    confirm: 'Approve',
    effect: 'The pet stays held for the adopter, and the hold starts again from now.',
  },
  complete: {
    button: 'Complete',
    question: (pet, adopter) => `Complete ${adopter}’s adoption of ${pet}?`,
    confirm: 'Complete adoption',
    effect: 'The adopter takes the pet home: the pet is marked sold.',
  },
  reject: {
    button: 'Reject',
    question: (pet, adopter) => `Reject ${adopter}’s adoption of ${pet}?`,
    confirm: 'Reject',
    effect: 'The pet becomes available again.',
  },
  cancel: {
    button: 'Cancel adoption',
    question: (pet, adopter) => `Cancel ${adopter}’s adoption of ${pet}?`,
    confirm: 'Cancel adoption',
    effect: 'The pet becomes available again.',
  },
  return: {
    button: 'Record return',
    question: (pet, adopter) => `Record that ${pet} came back from ${adopter}?`,
    confirm: 'Record return',
    effect: 'The pet becomes available again.',
  },
  extend: {
    button: 'Extend hold',
    question: (pet, adopter) => `Hold ${pet} longer for ${adopter}?`,
    confirm: 'Extend hold',
    effect: 'The hold ends that many hours later.',
  },
};

const STAFF_MOVES: readonly RequestedMove[] = [
  'approve',
  'complete',
  'extend',
  'reject',
  'cancel',
  'return',
];

/**
 * The moves `who` may make from `status`, by the service's own table: staff make every move,
 * an adopter only cancels its own.
 */
export function movesFor(status: AdoptionStatus, who: Session): RequestedMove[] {
  const mine: readonly RequestedMove[] = who.role === 'customer' ? ['cancel'] : STAFF_MOVES;
  return mine.filter((move) => MOVES[move].from.includes(status));
}

/** A move's route in the typed client. */
function post(move: RequestedMove, adoption: Versioned<Adoption>, body: object) {
  const params = {
    path: { adoptionId: adoption.data.id },
    header: { 'If-Match': adoption.etag },
  };
  switch (move) {
    case 'approve':
      return api.POST('/v1/adoptions/{adoptionId}/approve', { params, body });
    case 'complete':
      return api.POST('/v1/adoptions/{adoptionId}/complete', { params, body });
    case 'reject':
      return api.POST('/v1/adoptions/{adoptionId}/reject', { params, body });
    case 'cancel':
      return api.POST('/v1/adoptions/{adoptionId}/cancel', { params, body });
    case 'return':
      return api.POST('/v1/adoptions/{adoptionId}/return', { params, body });
    case 'extend':
      return api.POST('/v1/adoptions/{adoptionId}/extend', {
        params,
        body: body as { hours: number },
      });
  }
}

/** A number field's text as the API's body takes it: the API, not the form, checks it. */
function numberOf(text: string): unknown {
  if (text.trim() === '') return undefined;
  const parsed = Number(text);
  return Number.isNaN(parsed) ? text : parsed;
}

interface MoveDialogProps {
  move: RequestedMove;
  adoption: Adoption;
  /** The adoption as it is now: moved, or found changed by someone else. */
  onChanged: (adoption: Adoption) => void;
  onDone: (moved?: Adoption) => void;
}

/**
 * Asks before a move, with its optional reason (and hours, to extend). The adoption is read
 * again on opening, and the move applies only to that version (If-Match): what someone else
 * did since, the dialog shows instead of overwriting it.
 */
export function MoveDialog({ move, adoption, onChanged, onDone }: MoveDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const current = useLoad(
    () =>
      okVersioned(
        api.GET('/v1/adoptions/{adoptionId}', { params: { path: { adoptionId: adoption.id } } }),
      ),
    [adoption.id],
  );
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, ['reason', 'hours']);
  const text = MOVE_TEXT[move];

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => {
      dialog.current?.close();
      (opener?.isConnected ? opener : document.querySelector<HTMLElement>('h1'))?.focus();
    };
  }, []);

  const shown = current.data?.data ?? adoption;
  const allowed = MOVES[move].from.includes(shown.status);

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const reason = (form.get('reason') as string | null)?.trim();
    const body = {
      ...(reason ? { reason } : {}),
      ...(move === 'extend' ? { hours: numberOf((form.get('hours') as string | null) ?? '') } : {}),
    };
    void run(async () => {
      const version = current.data;
      if (!version) return;
      try {
        const moved = await ok(post(move, version, body));
        onChanged(moved);
        onDone(moved);
      } catch (failure) {
        // Changed by someone else first: show it as it is now, and what it still allows.
        const outdated =
          isEditConflict(failure) ||
          (failure instanceof ApiError && failure.code === 'INVALID_ADOPTION_TRANSITION');
        if (outdated) {
          const latest = await okVersioned(
            api.GET('/v1/adoptions/{adoptionId}', {
              params: { path: { adoptionId: adoption.id } },
            }),
          );
          current.set(() => latest);
          onChanged(latest.data);
        }
        throw failure;
      }
    });
  };

  return (
    <dialog ref={dialog} aria-labelledby="move-title" onCancel={() => onDone()}>
      <form onSubmit={onSubmit} noValidate aria-busy={current.loading || busy}>
        <h2 id="move-title">{text.question(shown.pet.name, adopterName(shown))}</h2>
        <p>
          Adoption {shown.id} is <AdoptionStatusBadge status={shown.status} />.
        </p>
        {shown.holdExpiresAt && (
          <p>
            <HoldCountdown until={shown.holdExpiresAt} />
          </p>
        )}
        {current.loading && !current.data && <p role="status">Loading…</p>}
        <ErrorAlert error={general ?? current.error} />
        {allowed ? (
          <>
            <p>{text.effect}</p>
            {move === 'extend' && (
              <Field
                name="hours"
                label="Hours to add"
                hint="From 1 to 168 (a week)."
                error={fields.hours}
              >
                {(control) => <input {...control} inputMode="numeric" defaultValue="24" />}
              </Field>
            )}
            <Field
              name="reason"
              label="Reason (optional)"
              hint="Up to 500 characters, kept with the adoption."
              error={fields.reason}
            >
              {(control) => <textarea {...control} rows={3} />}
            </Field>
          </>
        ) : (
          !current.loading && (
            <p role="alert">
              This adoption is {shown.status} now: it can no longer be moved this way.
            </p>
          )
        )}
        <div class="actions">
          <button type="button" class="button-secondary" onClick={() => onDone()}>
            {allowed ? 'Back' : 'Close'}
          </button>
          {allowed && (
            <button type="submit" disabled={busy || !current.data}>
              {text.confirm}
            </button>
          )}
        </div>
      </form>
    </dialog>
  );
}

interface MoveButtonsProps {
  adoption: Adoption;
  who: Session;
  onChanged: (adoption: Adoption) => void;
  /** Said after a move, e.g. "Adoption 7 is approved." */
  onMoved: (adoption: Adoption) => void;
}

/** The moves the adoption's status allows the user, each asked in a dialog. */
export function MoveButtons({ adoption, who, onChanged, onMoved }: MoveButtonsProps) {
  const [open, setOpen] = useState<RequestedMove>();
  const moves = movesFor(adoption.status, who);
  // An open dialog stays when its adoption turns out to allow no move any more: it says so.
  if (moves.length === 0 && !open) return null;
  return (
    <div class="row-actions">
      {moves.map((move) => (
        <button
          key={move}
          type="button"
          class={move === 'reject' || move === 'cancel' ? 'button-secondary' : undefined}
          aria-label={`${MOVE_TEXT[move].button}: adoption ${adoption.id}, ${adoption.pet.name}`}
          onClick={() => setOpen(move)}
        >
          {MOVE_TEXT[move].button}
        </button>
      ))}
      {open && (
        <MoveDialog
          move={open}
          adoption={adoption}
          onChanged={onChanged}
          onDone={(moved) => {
            setOpen(undefined);
            if (moved) onMoved(moved);
          }}
        />
      )}
    </div>
  );
}
