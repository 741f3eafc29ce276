import {
  AUDIT_ACTIONS,
  AUDIT_TARGET_TYPES,
  type AuditAction,
  type AuditTargetType,
} from '../../../src/audit/audit-actions.js';
import { api, type AuditEvent, ok } from '../api';
import { Link, navigate, useLocation } from '../router';
import {
  AdminsOnly,
  ErrorAlert,
  formatDate,
  LoadOlder,
  PageHeading,
  StatusMessage,
  useCursorList,
} from '../ui';

const PAGE_SIZE = 50;

/** The list's filters as the page's URL holds them: the API's own query parameters. */
interface Filters {
  action?: AuditAction;
  actorId?: number;
  targetType?: AuditTargetType;
  targetId?: number;
  /** ISO 8601 timestamps, as the API takes them. */
  since?: string;
  until?: string;
}

const FILTER_NAMES = ['action', 'actorId', 'targetType', 'targetId', 'since', 'until'] as const;

function idOf(text: string | null): number | undefined {
  const id = Number(text);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

function timestampOf(text: string | null): string | undefined {
  return text && !Number.isNaN(Date.parse(text)) ? new Date(text).toISOString() : undefined;
}

function filtersOf(query: URLSearchParams): Filters {
  return {
    action: AUDIT_ACTIONS.find((action) => action === query.get('action')),
    actorId: idOf(query.get('actorId')),
    targetType: AUDIT_TARGET_TYPES.find((type) => type === query.get('targetType')),
    targetId: idOf(query.get('targetId')),
    since: timestampOf(query.get('since')),
    until: timestampOf(query.get('until')),
  };
}

function auditRoute(filters: Filters): string {
  const query = new URLSearchParams();
  for (const name of FILTER_NAMES) {
    const value = filters[name];
    if (value !== undefined) query.set(name, String(value));
  }
  const search = query.toString();
  return search ? `/audit?${search}` : '/audit';
}

/** A timestamp as a `datetime-local` input shows it: the browser's local time, to the minute. */
function localInputValue(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** A field's value in a diff: text as it is, anything else as JSON, nothing as "none". */
function ValueOf({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span class="hint">none</span>;
  return <code>{typeof value === 'string' ? value : JSON.stringify(value)}</code>;
}

/** Where the console shows what an entry is about; users and others have no page of their own. */
function targetHref(target: NonNullable<AuditEvent['target']>, action: AuditAction): string {
  const deleted = action.endsWith('.deleted');
  if (target.type === 'pet' && !deleted) return `/pets/${target.id}`;
  if (target.type === 'webhook' && !deleted) return `/webhooks/${target.id}`;
  return auditRoute({ targetType: target.type, targetId: target.id });
}

function Actor({ actor }: { actor: AuditEvent['actor'] }) {
  const name = actor.username ?? 'Unknown';
  const via = actor.apiKeyPrefix ? ` with the key ${actor.apiKeyPrefix}…` : '';
  // The console has no page per user: the link lists what this user did.
  if (actor.userId === undefined) {
    return (
      <>
        {name}
        {via}
      </>
    );
  }
  return (
    <>
      <Link href={auditRoute({ actorId: actor.userId })}>{name}</Link>
      {via}
    </>
  );
}

function Changes({ entry }: { entry: AuditEvent }) {
  // By name: the stored order is the database's, not one a reader could follow.
  const fields = Object.entries(entry.changes ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (fields.length === 0) return <span class="hint">No changes recorded</span>;
  return (
    <details class="diff">
      <summary>
        {fields.length === 1 ? '1 field changed' : `${fields.length} fields changed`}
        <span class="visually-hidden"> in entry {entry.id}</span>
      </summary>
      <table>
        <caption class="visually-hidden">Changes of entry {entry.id}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {fields.map(([field, { from, to }]) => (
            <tr key={field}>
              <th scope="row">{field}</th>
              <td class="diff-from" data-label="Before">
                <ValueOf value={from} />
              </td>
              <td class="diff-to" data-label="After">
                <ValueOf value={to} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

function FilterForm({ filters }: { filters: Filters }) {
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => ((form.get(name) as string | null) ?? '').trim();
    const time = (name: string) => (text(name) ? new Date(text(name)).toISOString() : undefined);
    navigate(
      auditRoute({
        action: AUDIT_ACTIONS.find((action) => action === text('action')),
        actorId: idOf(text('actorId')),
        targetType: AUDIT_TARGET_TYPES.find((type) => type === text('targetType')),
        targetId: idOf(text('targetId')),
        since: time('since'),
        until: time('until'),
      }),
    );
  };
  return (
    // Keyed by the filters shown, so that the form follows the address (Back, Forward).
    <form class="filters" onSubmit={onSubmit} aria-label="Filter entries" key={auditRoute(filters)}>
      <div class="field">
        <label for="filter-action">Action</label>
        <select id="filter-action" name="action">
          <option value="">Any</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action} selected={action === filters.action}>
              {action}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-actor">Actor (user id)</label>
        <input
          id="filter-actor"
          name="actorId"
          inputMode="numeric"
          defaultValue={filters.actorId?.toString() ?? ''}
        />
      </div>
      <div class="field">
        <label for="filter-target-type">Target type</label>
        <select id="filter-target-type" name="targetType">
          <option value="">Any</option>
          {AUDIT_TARGET_TYPES.map((type) => (
            <option key={type} value={type} selected={type === filters.targetType}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="filter-target">Target id</label>
        <input
          id="filter-target"
          name="targetId"
          inputMode="numeric"
          defaultValue={filters.targetId?.toString() ?? ''}
        />
      </div>
      <div class="field">
        <label for="filter-since">From</label>
        <input
          id="filter-since"
          name="since"
          type="datetime-local"
          defaultValue={localInputValue(filters.since)}
        />
      </div>
      <div class="field">
        <label for="filter-until">Before</label>
        <input
          id="filter-until"
          name="until"
          type="datetime-local"
          defaultValue={localInputValue(filters.until)}
        />
      </div>
      <button type="submit">Filter</button>
      <Link class="button button-secondary" href="/audit">
        Clear
      </Link>
    </form>
  );
}

function AuditLog() {
  const { query } = useLocation();
  const filters = filtersOf(query);
  const key = auditRoute(filters);
  const {
    pages: entries,
    more,
    announcement,
    list,
    loadOlder,
  } = useCursorList(
    'auditEvents',
    (cursor) =>
      ok(
        api.GET('/v1/audit-events', {
          params: { query: { ...filters, limit: PAGE_SIZE, cursor } },
        }),
      ),
    'entries',
    [key],
  );

  const data = entries.data;
  return (
    <>
      <PageHeading>Audit log</PageHeading>
      <FilterForm filters={filters} />
      <ErrorAlert error={entries.error ?? more.error} />
      {entries.loading && !data && <p role="status">Loading…</p>}
      {data && data.auditEvents.length === 0 && <p>No entries match.</p>}
      {data && data.auditEvents.length > 0 && (
        <>
          <table class="stack audit">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Changes</th>
              </tr>
            </thead>
            <tbody ref={list}>
              {data.auditEvents.map((entry) => (
                <tr key={entry.id} tabIndex={-1}>
                  <td data-label="When">
                    <time dateTime={entry.occurredAt}>{formatDate(entry.occurredAt)}</time>
                  </td>
                  <td data-label="Action">
                    <code>{entry.action}</code>
                    {entry.outcome === 'failure' && (
                      <>
                        {' '}
                        <span class="badge badge-failed">failed</span>
                      </>
                    )}
                  </td>
                  <td data-label="Actor">
                    <Actor actor={entry.actor} />
                    {entry.ip && <span class="hint nowrap ip">{entry.ip}</span>}
                  </td>
                  <td data-label="Target">
                    {entry.target ? (
                      <Link href={targetHref(entry.target, entry.action)}>
                        {`${entry.target.type} ${entry.target.id}`}
                      </Link>
                    ) : (
                      <span class="hint">none</span>
                    )}
                  </td>
                  <td data-label="Changes">
                    <Changes entry={entry} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <LoadOlder
            cursor={data.pagination.nextCursor}
            busy={more.busy}
            onLoad={loadOlder}
            end={<p>No older entries.</p>}
          >
            Load older entries
          </LoadOlder>
        </>
      )}
      <StatusMessage>{announcement}</StatusMessage>
    </>
  );
}

/** The audit log (admins): filtered by the address, newest first, older pages on demand. */
export function AuditPage() {
  return (
    <AdminsOnly title="Audit log" task="read the audit log">
      {() => <AuditLog />}
    </AdminsOnly>
  );
}
