import { useEffect, useRef } from 'preact/hooks';
import { api, ok, type WebhookDelivery } from '../api';
import { Link, navigate, offsetOf, useLocation } from '../router';
import {
  ErrorAlert,
  Field,
  formatDate,
  NotLoaded,
  PageHeading,
  Pager,
  StaffOnly,
  StatusMessage,
  useAnnouncement,
  useLoad,
  useSubmit,
  type Loaded,
} from '../ui';

const PAGE_SIZE = 20;
const STATUSES: WebhookDelivery['status'][] = ['pending', 'succeeded', 'failed'];
/** How often a page showing a delivery about to be sent looks again. */
const REFRESH_MS = 3000;
/**
 * Looks in a row that found nothing changed, after which a page stops looking: a delivery
 * can stay due without being sent (a pet's later event waits for its earlier one).
 */
const MAX_UNCHANGED_LOOKS = 10;

/**
 * A pending delivery due within a minute: worth watching. One whose retry is further off is
 * not polled for (each look counts against the user's rate limit); Refresh shows it.
 */
function dueSoon(delivery: WebhookDelivery): boolean {
  if (delivery.status !== 'pending') return false;
  return !delivery.nextAttemptAt || Date.parse(delivery.nextAttemptAt) <= Date.now() + 60_000;
}

function DeliveryStatus({ delivery }: { delivery: WebhookDelivery }) {
  return (
    <>
      <span class={`badge badge-${delivery.status}`}>{delivery.status}</span>
      {delivery.status === 'pending' && delivery.nextAttemptAt && (
        <span class="hint"> next try {formatDate(delivery.nextAttemptAt)}</span>
      )}
    </>
  );
}

/** The last attempt's status code (or "no response"), duration and error. */
function LastAttempt({ attempt }: { attempt: WebhookDelivery['lastAttempt'] }) {
  if (!attempt) return <>Not yet</>;
  return (
    <>
      {attempt.statusCode ?? 'No response'} in {attempt.durationMs} ms
      {attempt.error && <span class="hint prose">{attempt.error}</span>}
    </>
  );
}

/**
 * Looks again every REFRESH_MS while `watching` (each look counts against the user's rate
 * limit), until MAX_UNCHANGED_LOOKS in a row have changed nothing.
 */
function useRefreshWhile<T>(loaded: Loaded<T>, watching: boolean): void {
  const unchanged = useRef({ shown: '', looks: 0 });
  useEffect(() => {
    if (!watching || loaded.loading) return;
    const shown = JSON.stringify(loaded.data);
    const seen = unchanged.current;
    seen.looks = shown === seen.shown ? seen.looks + 1 : 0;
    seen.shown = shown;
    if (seen.looks >= MAX_UNCHANGED_LOOKS) return;
    const timer = setTimeout(loaded.reload, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [watching, loaded.loading, loaded.data]);
}

/**
 * Sends a delivery again now; the caller shows the delivery it answers. A disabled
 * webhook's delivery is due again, but waits until the webhook is enabled.
 */
function useRetry(webhookId: number, enabled: boolean) {
  const retry = useSubmit();
  const [announcement, announce] = useAnnouncement();
  const run = (delivery: WebhookDelivery, shown: (updated: WebhookDelivery) => void) =>
    void retry.run(async () => {
      const updated = await ok(
        api.POST('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
          params: { path: { webhookId, deliveryId: delivery.id } },
        }),
      );
      shown(updated);
      announce(
        enabled
          ? `Delivery ${delivery.id} is being sent again.`
          : `Delivery ${delivery.id} will be sent once the webhook is enabled again.`,
      );
    });
  return { ...retry, run, announcement };
}

/** The webhook's deliveries, newest first, with a retry button each. */
export function DeliveryLog({ webhookId, enabled }: { webhookId: number; enabled: boolean }) {
  const { query } = useLocation();
  const offset = offsetOf(query);
  const status = STATUSES.find((value) => value === query.get('status'));
  const deliveries = useLoad(
    () =>
      ok(
        api.GET('/v1/webhooks/{webhookId}/deliveries', {
          params: {
            path: { webhookId },
            query: { limit: PAGE_SIZE, offset, ...(status && { status }) },
          },
        }),
      ),
    [webhookId, offset, status],
  );
  const retry = useRetry(webhookId, enabled);
  const routeOf = (at: number, statusShown = status) => {
    const search = new URLSearchParams();
    if (statusShown) search.set('status', statusShown);
    if (at > 0) search.set('offset', String(at));
    const text = search.toString();
    return `/webhooks/${webhookId}${text ? `?${text}` : ''}`;
  };

  // Deliveries about to be sent change on their own: look again until they are done.
  useRefreshWhile(deliveries, enabled && deliveries.data?.deliveries.some(dueSoon) === true);

  const onFilter = (event: SubmitEvent) => {
    event.preventDefault();
    const chosen = new FormData(event.currentTarget as HTMLFormElement).get('delivery-status');
    navigate(
      routeOf(
        0,
        STATUSES.find((value) => value === chosen),
      ),
    );
  };

  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <form class="filters deliveries-filter" onSubmit={onFilter} aria-label="Filter deliveries">
        <Field name="delivery-status" label="Status">
          {(control) => (
            // Keyed by the filter shown, so that it follows the address (Back, Forward).
            <select {...control} key={status}>
              <option value="">All</option>
              {STATUSES.map((value) => (
                <option key={value} value={value} selected={value === status}>
                  {value}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit">Filter</button>
        <button
          type="button"
          class="button-secondary"
          disabled={deliveries.loading}
          onClick={deliveries.reload}
        >
          Refresh
        </button>
      </form>
      <StatusMessage>{retry.announcement}</StatusMessage>
      <ErrorAlert error={deliveries.error ?? retry.error} />
      {deliveries.data && deliveries.data.deliveries.length === 0 && (
        <p>{status ? `No ${status} deliveries.` : 'Nothing delivered yet.'}</p>
      )}
      {deliveries.data && deliveries.data.deliveries.length > 0 && (
        <>
          <table class="stack deliveries">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Pet</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last attempt</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.deliveries.map((delivery) => (
                <tr key={delivery.id}>
                  <th scope="row" data-label="Created">
                    <Link href={`/webhooks/${webhookId}/deliveries/${delivery.id}`}>
                      {formatDate(delivery.createdAt)}
                    </Link>
                  </th>
                  <td data-label="Event">
                    <code>{delivery.eventType}</code>
                  </td>
                  <td data-label="Pet" class="nowrap">
                    <Link href={`/pets/${delivery.petId}`}>Pet {delivery.petId}</Link>
                  </td>
                  <td data-label="Status">
                    <DeliveryStatus delivery={delivery} />
                  </td>
                  <td data-label="Attempts">{delivery.attempts}</td>
                  <td data-label="Last attempt">
                    <LastAttempt attempt={delivery.lastAttempt} />
                  </td>
                  <td>
                    <button
                      type="button"
                      class="button-secondary"
                      disabled={retry.busy}
                      onClick={() =>
                        retry.run(delivery, (updated) =>
                          deliveries.set((page) => ({
                            ...page!,
                            deliveries: page!.deliveries.map((listed) =>
                              listed.id === updated.id ? updated : listed,
                            ),
                          })),
                        )
                      }
                    >
                      Retry<span class="visually-hidden"> delivery {delivery.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            offset={offset}
            count={deliveries.data.deliveries.length}
            total={deliveries.data.pagination.total}
            limit={PAGE_SIZE}
            hrefOf={(at) => routeOf(at)}
          />
        </>
      )}
    </section>
  );
}

export function DeliveryPage({ webhookId, deliveryId }: { webhookId: number; deliveryId: number }) {
  return (
    <StaffOnly title="Delivery" task="manage webhooks">
      {() => <DeliveryDetail webhookId={webhookId} deliveryId={deliveryId} />}
    </StaffOnly>
  );
}

/** One delivery and each of its attempts, newest first. */
function DeliveryDetail({ webhookId, deliveryId }: { webhookId: number; deliveryId: number }) {
  const webhook = useLoad(
    () => ok(api.GET('/v1/webhooks/{webhookId}', { params: { path: { webhookId } } })),
    [webhookId],
  );
  const delivery = useLoad(
    () =>
      ok(
        api.GET('/v1/webhooks/{webhookId}/deliveries/{deliveryId}', {
          params: { path: { webhookId, deliveryId } },
        }),
      ),
    [webhookId, deliveryId],
  );
  const enabled = webhook.data?.enabled === true;
  const retry = useRetry(webhookId, enabled);
  const back = (
    <p>
      <Link href={`/webhooks/${webhookId}`}>Back to the webhook</Link>
    </p>
  );
  // The attempt log changes when the delivery is sent.
  useRefreshWhile(delivery, enabled && delivery.data !== undefined && dueSoon(delivery.data));

  if (!delivery.data) {
    return <NotLoaded load={delivery} title="Delivery" missing="Delivery not found" back={back} />;
  }
  const current = delivery.data;
  return (
    <>
      <PageHeading>{`Delivery ${current.id}`}</PageHeading>
      {back}
      <StatusMessage>{retry.announcement}</StatusMessage>
      <ErrorAlert error={delivery.error ?? retry.error} />
      <dl class="details">
        <dt>Event</dt>
        <dd>
          <code>{current.eventType}</code> (id <code>{current.eventId}</code>)
        </dd>
        <dt>Pet</dt>
        <dd>
          <Link href={`/pets/${current.petId}`}>Pet {current.petId}</Link>
        </dd>
        <dt>Status</dt>
        <dd>
          <DeliveryStatus delivery={current} />
        </dd>
        <dt>Attempts</dt>
        <dd>{current.attempts}</dd>
        <dt>Created</dt>
        <dd>{formatDate(current.createdAt)}</dd>
        {current.completedAt && (
          <>
            <dt>Completed</dt>
            <dd>{formatDate(current.completedAt)}</dd>
          </>
        )}
      </dl>
      <div class="actions">
        <button
          type="button"
          disabled={retry.busy}
          onClick={() => retry.run(current, () => delivery.reload())}
        >
          Retry now
        </button>
      </div>
      <h2>Attempts</h2>
      {current.attemptLog.length === 0 ? (
        <p>Not attempted yet.</p>
      ) : (
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Response</th>
              <th scope="col">Duration</th>
              <th scope="col">Error</th>
              <th scope="col">Response body</th>
            </tr>
          </thead>
          <tbody>
            {current.attemptLog.map((attempt) => (
              <tr key={attempt.attemptedAt}>
                <th scope="row" data-label="Time">
                  {formatDate(attempt.attemptedAt)}
                </th>
                <td data-label="Response">{attempt.statusCode ?? '—'}</td>
                <td data-label="Duration">{attempt.durationMs} ms</td>
                <td data-label="Error" class="prose">
                  {attempt.error ?? '—'}
                </td>
                <td data-label="Response body">
                  {attempt.responseBody ? <pre class="body">{attempt.responseBody}</pre> : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
