import { useState } from 'preact/hooks';
import { api, type WebhookWithSecret, ok, type Webhook } from '../api';
import { Link, offsetOf, useLocation } from '../router';
import type { Session } from '../session';
import {
  ErrorAlert,
  formatDate,
  PageHeading,
  Pager,
  ShownOnce,
  StaffOnly,
  StatusMessage,
  useAnnouncement,
  useLoad,
} from '../ui';
import {
  filtersOf,
  NO_WEBHOOK,
  WebhookForm,
  type WebhookFilters,
  type WebhookValues,
} from './webhook-form';

const PAGE_SIZE = 100;

export function WebhooksPage() {
  return (
    <StaffOnly title="Webhooks" task="manage webhooks">
      {(current) => <WebhookList current={current} />}
    </StaffOnly>
  );
}

/** Enabled, or disabled and why (the service disables a webhook that fails for 24 hours). */
export function WebhookState({ webhook }: { webhook: Webhook }) {
  if (webhook.enabled) return <span class="badge badge-enabled">enabled</span>;
  return (
    <>
      <span class="badge badge-disabled">disabled</span>
      {webhook.disabledReason && <span> {webhook.disabledReason}</span>}
    </>
  );
}

/** The body of a create: the filters and the description are left out when empty. */
function webhookBody(values: WebhookValues) {
  const { url, events, description } = values;
  const filters = filtersOf(values);
  return {
    url,
    events,
    ...(filters && { filters }),
    ...(description.trim() ? { description } : {}),
  };
}

/** A user's own webhooks; an admin's every one, with whose each is. */
function WebhookList({ current }: { current: Session }) {
  const isAdmin = current.role === 'admin';
  const { query } = useLocation();
  const offset = offsetOf(query);
  const webhooks = useLoad(
    () => ok(api.GET('/v1/webhooks', { params: { query: { limit: PAGE_SIZE, offset } } })),
    [offset],
  );
  const [created, setCreated] = useState<WebhookWithSecret>();
  const [announcement, announce] = useAnnouncement();
  const routeOf = (at: number) => (at > 0 ? `/webhooks?offset=${at}` : '/webhooks');

  const create = async (values: WebhookValues) => {
    // Sent without an Idempotency-Key, so never a replay: the secret is there.
    const webhook = (await ok(
      api.POST('/v1/webhooks', { body: webhookBody(values) }),
    )) as WebhookWithSecret;
    setCreated(webhook);
    announce(`Webhook to ${webhook.url} created.`);
    webhooks.reload();
    return NO_WEBHOOK;
  };

  return (
    <>
      <PageHeading>Webhooks</PageHeading>
      <p>
        A webhook posts each change of a pet or an adoption, as it happens, to a URL of yours,
        signed with the webhook’s secret (Standard Webhooks), optionally only for the pets you
        choose. Deliveries that fail are retried for 24 hours.
      </p>
      {created ? (
        <NewSecret
          title={`Your new webhook to ${created.url}`}
          secret={created.secret}
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <WebhookForm
          title="Add a webhook"
          submitLabel="Add webhook"
          initial={NO_WEBHOOK}
          onSave={create}
        />
      )}

      <h2>{isAdmin ? 'All webhooks' : 'Your webhooks'}</h2>
      <StatusMessage>{announcement}</StatusMessage>
      <ErrorAlert error={webhooks.error} />
      {webhooks.data && webhooks.data.webhooks.length === 0 && <p>No webhooks yet.</p>}
      {webhooks.data && webhooks.data.webhooks.length > 0 && (
        <>
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">URL</th>
                {isAdmin && <th scope="col">Owner</th>}
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.webhooks.map((webhook) => (
                <tr key={webhook.id}>
                  <th scope="row" data-label="URL" class="url">
                    <Link href={`/webhooks/${webhook.id}`}>{webhook.url}</Link>
                    {webhook.description && <p class="hint">{webhook.description}</p>}
                  </th>
                  {isAdmin && <td data-label="Owner">{webhook.owner?.username ?? 'the store'}</td>}
                  <td data-label="Events">
                    <EventList events={webhook.events} />
                  </td>
                  <td data-label="State">
                    <WebhookState webhook={webhook} />
                  </td>
                  <td data-label="Created">{formatDate(webhook.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            offset={offset}
            count={webhooks.data.webhooks.length}
            total={webhooks.data.pagination.total}
            limit={PAGE_SIZE}
            hrefOf={routeOf}
          />
        </>
      )}
    </>
  );
}

export function EventList({ events }: { events: readonly string[] }) {
  return (
    <ul class="inline-list">
      {events.map((type) => (
        <li key={type}>
          <code>{type}</code>
        </li>
      ))}
    </ul>
  );
}

/** What narrows a webhook's pet events, in words; categories by name. */
export function FilterList({ filters }: { filters?: WebhookFilters }) {
  const categories = useLoad(
    async () => (filters?.categoryIds ? ok(api.GET('/v1/categories')) : undefined),
    [filters?.categoryIds?.join(',')],
  );
  if (!filters) return <>Every pet</>;
  const nameOf = (id: number) =>
    categories.data?.categories.find((c) => c.id === id)?.name ?? `category ${id}`;
  return (
    <ul class="inline-list">
      {filters.categoryIds && <li>In {filters.categoryIds.map(nameOf).join(' or ')}</li>}
      {filters.statuses && <li>{filters.statuses.join(' or ')}</li>}
      {filters.tags && <li>Tagged {filters.tags.join(' or ')}</li>}
    </ul>
  );
}

interface NewSecretProps {
  title: string;
  secret: string;
  /** When the secret it replaces stops signing, after a rotation. */
  previousExpiresAt?: string;
  onDone: () => void;
}

/** The only time a signing secret is shown. */
export function NewSecret({ title, secret, previousExpiresAt, onDone }: NewSecretProps) {
  return (
    <ShownOnce
      id="new-secret"
      title={title}
      label="Signing secret"
      value={secret}
      doneLabel="I have stored it"
      onDone={onDone}
    >
      <strong>Store this secret now. It will not be shown again.</strong> Your receiver checks each
      delivery’s signature with it.
      {previousExpiresAt &&
        ` The old secret also signs every delivery until ${formatDate(previousExpiresAt)}.`}{' '}
      If you lose it, rotate the secret.
    </ShownOnce>
  );
}
