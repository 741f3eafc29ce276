import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, isNotFound, messageOf } from './api';
import { Link } from './router';
import { type Session, useSession } from './session';

/** The page's one h1: names the tab and takes focus, so screen readers announce the new page. */
export function PageHeading({ children }: { children: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · Pet store console`;
    heading.current?.focus();
  }, [children]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** The attributes that tie a control to its label, hint and error. */
interface ControlProps {
  id: string;
  name: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

interface FieldProps {
  name: string;
  label: string;
  error?: string;
  hint?: string;
  children: (control: ControlProps) => JSX.Element;
}

/** A labelled form control with its hint and its error from the API, read out with it. */
export function Field({ name, label, error, hint, children }: FieldProps) {
  const id = `field-${name}`;
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {children({
        id,
        name,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': described || undefined,
      })}
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** The input of a 6-digit code from an authenticator app, inside a `Field`. */
export function TotpCodeInput({
  control,
  value,
  onValue,
}: {
  control: ControlProps;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <input
      {...control}
      autocomplete="one-time-code"
      inputMode="numeric"
      maxLength={6}
      value={value}
      onInput={(event) => onValue(event.currentTarget.value)}
    />
  );
}

/** A failed call, announced when it appears. */
export function ErrorAlert({ error }: { error: unknown }) {
  if (error === undefined) return null;
  return (
    <p class="alert alert-error" role="alert">
      {messageOf(error)}
    </p>
  );
}

/** A message about something that just happened, announced politely. */
export function StatusMessage({ children }: { children?: ComponentChildren }) {
  return (
    <p class="status-message" role="status">
      {children}
    </p>
  );
}

/**
 * The text for a StatusMessage and the function that changes it. The region is emptied
 * first, so that the same text twice ("Photo uploaded.") is announced twice.
 */
export function useAnnouncement(): [string, (text: string) => void] {
  const [text, setText] = useState('');
  const announce = useCallback((next: string) => {
    setText('');
    requestAnimationFrame(() => setText(next));
  }, []);
  return [text, announce];
}

/**
 * Splits a failed call into the messages shown under a form's own fields and whatever is
 * left for the alert above it: any other error, or field errors the form has no input for.
 */
export function formErrors(
  error: unknown,
  formFields: readonly string[],
): { fields: Record<string, string>; general: unknown } {
  if (!(error instanceof ApiError)) return { fields: {}, general: error };
  const fields = error.fieldErrors;
  const names = Object.keys(fields);
  const shown = names.length > 0 && names.every((name) => formFields.includes(name));
  return shown ? { fields, general: undefined } : { fields: {}, general: error };
}

interface ConfirmProps {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/** A modal question (the native dialog: focus kept inside, Escape cancels). */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    // Back to where the user was; if that is gone (a revoked key's row), to the page heading.
    return () => {
      dialog.current?.close();
      (opener?.isConnected ? opener : document.querySelector<HTMLElement>('h1'))?.focus();
    };
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      {children}
      <div class="actions">
        <button type="button" class="button-secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="button-danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/**
 * A page about one resource until it has it: loading, or why not (titled `missing` when there
 * is no such resource), with the way back.
 */
export function NotLoaded({
  load,
  title,
  missing,
  back,
}: {
  load: { loading: boolean; error?: unknown };
  title: string;
  missing: string;
  back: ComponentChildren;
}) {
  return (
    <>
      <PageHeading>{isNotFound(load.error) ? missing : title}</PageHeading>
      {load.loading ? <p role="status">Loading…</p> : <ErrorAlert error={load.error} />}
      {back}
    </>
  );
}

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload: () => void;
  /**
   * Shows data the caller already has, such as what an update answered, made from the data
   * shown now. A load still under way is dropped, so that it cannot bring back older data.
   */
  set: (update: (data: T | undefined) => T) => void;
}

/**
 * A list read by cursor, newest first: the first page loads when `deps` change, and
 * `loadOlder` appends the next one, announces it and moves the focus to its first row.
 */
export function useCursorList<K extends string, Page extends Record<K, unknown[]>>(
  rowsKey: K,
  fetchPage: (cursor?: string) => Promise<Page>,
  rowsNoun: string,
  deps: unknown[],
) {
  const pages = useLoad(() => fetchPage(), deps);
  const more = useSubmit();
  const [announcement, announce] = useAnnouncement();
  const list = useRef<HTMLTableSectionElement>(null);
  const loadOlder = (cursor: string) =>
    void more.run(async () => {
      const next = await fetchPage(cursor);
      const shown = pages.data?.[rowsKey].length ?? 0;
      pages.set((data) => ({ ...next, [rowsKey]: [...(data?.[rowsKey] ?? []), ...next[rowsKey]] }));
      announce(`${next[rowsKey].length} older ${rowsNoun} shown.`);
      // The button may be gone (nothing older): go on from the first row just loaded.
      requestAnimationFrame(() =>
        list.current?.querySelectorAll<HTMLElement>(':scope > tr')[shown]?.focus(),
      );
    });
  return { pages, more, announcement, announce, list, loadOlder };
}

interface LoadOlderProps {
  /** The answer's `pagination.nextCursor`: without one there is nothing older to load. */
  cursor: string | undefined;
  busy: boolean;
  /** `useCursorList`'s `loadOlder`. */
  onLoad: (cursor: string) => void;
  /** The button's text: "Load older entries". */
  children: string;
  /** What is shown instead when there is nothing older, if anything. */
  end?: ComponentChildren;
}

/** The button under a `useCursorList` list that appends its next page. */
export function LoadOlder({ cursor, busy, onLoad, children, end }: LoadOlderProps) {
  if (!cursor) return <>{end}</>;
  return (
    <button type="button" class="button-secondary" disabled={busy} onClick={() => onLoad(cursor)}>
      {children}
    </button>
  );
}

/**
 * Loads when `deps` change; answers from a superseded load are dropped. A failed `reload`
 * keeps what is shown next to its error; new `deps` show nothing older.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const [version, setVersion] = useState(0);
  // Only the answer of the latest load is shown.
  const latest = useRef(0);
  const loadedDeps = useRef<unknown[] | undefined>(undefined);
  useEffect(() => {
    const id = ++latest.current;
    const reloading = loadedDeps.current?.every((dep, i) => Object.is(dep, deps[i])) === true;
    loadedDeps.current = deps;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => id === latest.current && setState({ data, loading: false }),
      (error: unknown) =>
        id === latest.current &&
        setState((previous) => ({
          data: reloading ? previous.data : undefined,
          error,
          loading: false,
        })),
    );
    // The caller names the inputs of `load` in `deps`.
  }, [...deps, version]);
  const reload = useCallback(() => setVersion((value) => value + 1), []);
  const set = useCallback((update: (data: T | undefined) => T) => {
    latest.current += 1;
    setState((previous) => ({ data: update(previous.data), loading: false }));
  }, []);
  return { ...state, reload, set };
}

/** A request's outcome while it runs: busy, then an error or nothing. */
export function useSubmit(): {
  busy: boolean;
  error: unknown;
  run: (action: () => Promise<void>) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : 'Never';
}

interface PagerProps {
  offset: number;
  count: number;
  total: number;
  limit: number;
  /** The route of the page at an offset. */
  hrefOf: (offset: number) => string;
}

export function Pager({ offset, count, total, limit, hrefOf }: PagerProps) {
  if (total === 0) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <p>
        {count > 0
          ? `Showing ${offset + 1}–${offset + count} of ${total}`
          : `No more: ${total} in all`}
      </p>
      {count === 0 && <Link href={hrefOf(0)}>First page</Link>}
      {offset > 0 && count > 0 && (
        <Link href={hrefOf(Math.max(0, offset - limit))}>Previous page</Link>
      )}
      {offset + count < total && <Link href={hrefOf(offset + limit)}>Next page</Link>}
    </nav>
  );
}

interface ShownOnceProps {
  /** Prefix of the panel's element ids. */
  id: string;
  title: string;
  /** The secret's label. */
  label: string;
  value: string;
  /** The warning that it will not be shown again. */
  children: ComponentChildren;
  doneLabel: string;
  onDone: () => void;
}

/** The only time a secret (an API key, a signing secret) is shown, with a Copy button. */
export function ShownOnce({
  id,
  title,
  label,
  value,
  children,
  doneLabel,
  onDone,
}: ShownOnceProps) {
  const input = useRef<HTMLInputElement>(null);
  const [copyResult, announce] = useAnnouncement();
  // The panel replaces what had focus: bring the user, and the warning, to the secret.
  useEffect(() => input.current?.focus(), []);

  const copyByHand = () => {
    input.current?.select();
    announce('Copying is blocked here: the text is selected, copy it by hand.');
  };
  const copy = () => {
    // The clipboard API exists only on https pages and on localhost.
    if (!navigator.clipboard) return copyByHand();
    navigator.clipboard
      .writeText(value)
      .then(() => announce('Copied to the clipboard.'), copyByHand);
  };

  return (
    <section class="panel panel-warning" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p class="warning" id={`${id}-warning`}>
        {children}
      </p>
      <label for={`${id}-value`}>{label}</label>
      <div class="copy-row">
        <input
          ref={input}
          id={`${id}-value`}
          readOnly
          aria-describedby={`${id}-warning`}
          value={value}
          spellcheck={false}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <StatusMessage>{copyResult}</StatusMessage>
      <button
        type="button"
        class="button-secondary"
        onClick={() => {
          onDone();
          // The panel and its button go: focus returns to the top of the page, not to <body>.
          document.querySelector<HTMLElement>('main h1')?.focus();
        }}
      >
        {doneLabel}
      </button>
    </section>
  );
}

interface AdminsOnlyProps {
  title: string;
  /** What only administrators may do, e.g. "manage users". */
  task: string;
  children: (admin: Session) => JSX.Element;
}

/** A page for admins: opened by anyone else (its link is not shown to them), it says so. */
export function AdminsOnly({ title, task, children }: AdminsOnlyProps) {
  const current = useSession();
  if (current?.role !== 'admin') {
    return (
      <>
        <PageHeading>{title}</PageHeading>
        <p role="alert">Only administrators can {task}.</p>
      </>
    );
  }
  return children(current);
}

interface StaffOnlyProps {
  title: string;
  /** What only staff may do, e.g. "manage webhooks". */
  task: string;
  children: (staff: Session) => JSX.Element;
}

/** A page for staff (users and admins): opened by a customer, it says so. */
export function StaffOnly({ title, task, children }: StaffOnlyProps) {
  const current = useSession();
  if (!current || current.role === 'customer') {
    return (
      <>
        <PageHeading>{title}</PageHeading>
        <p role="alert">Only staff can {task}.</p>
      </>
    );
  }
  return children(current);
}
