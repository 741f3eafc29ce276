import { useState } from 'preact/hooks';
import { api, ok, type WebhookWithSecret, type Webhook } from '../api';
import { Link, navigate } from '../router';
import {
  ConfirmDialog,
  ErrorAlert,
  formatDate,
  NotLoaded,
  PageHeading,
  StaffOnly,
  StatusMessage,
  useAnnouncement,
  useLoad,
  useSubmit,
} from '../ui';
import { DeliveryLog } from './webhook-deliveries';
import { filtersOf, filterValuesOf, WebhookForm, type WebhookValues } from './webhook-form';
import { EventList, FilterList, NewSecret, WebhookState } from './webhooks';

export function WebhookPage({ id }: { id: number }) {
  return (
    <StaffOnly title="Webhook" task="manage webhooks">
      {() => <WebhookDetail id={id} />}
    </StaffOnly>
  );
}

function valuesOf(webhook: Webhook): WebhookValues {
  return {
    url: webhook.url,
    events: [...webhook.events],
    ...filterValuesOf(webhook.filters),
    description: webhook.description ?? '',
  };
}

/** Only what the form changed: an empty body would be refused, and nothing else is touched. */
function changesOf(webhook: Webhook, values: WebhookValues) {
  const before = valuesOf(webhook);
  const sameEvents =
    before.events.length === values.events.length &&
    before.events.every((type) => values.events.includes(type));
  const filters = filtersOf(values);
  const changes = {
    ...(values.url !== before.url && { url: values.url }),
    ...(!sameEvents && { events: values.events }),
    // Replaced as a whole; none left clears them.
    ...(JSON.stringify(filters) !== JSON.stringify(filtersOf(before)) && { filters }),
    // An emptied description is removed.
    ...(values.description !== before.description && {
      description: values.description.trim() ? values.description : null,
    }),
  };
  return Object.keys(changes).length > 0 ? changes : undefined;
}

function WebhookDetail({ id }: { id: number }) {
  const webhook = useLoad(
    () => ok(api.GET('/v1/webhooks/{webhookId}', { params: { path: { webhookId: id } } })),
    [id],
  );
  const [rotated, setRotated] = useState<WebhookWithSecret>();
  const [confirming, setConfirming] = useState<'rotate' | 'delete'>();
  const [announcement, announce] = useAnnouncement();
  const action = useSubmit();

  if (!webhook.data) {
    return (
      <NotLoaded
        load={webhook}
        title="Webhook"
        missing="Webhook not found"
        back={
          <p>
            <Link href="/webhooks">Back to the webhooks</Link>
          </p>
        }
      />
    );
  }
  const current = webhook.data;
  const params = { path: { webhookId: id } };

  const setEnabled = (enabled: boolean) =>
    void action.run(async () => {
      const updated = await ok(api.PUT('/v1/webhooks/{webhookId}', { params, body: { enabled } }));
      webhook.set(() => updated);
      announce(
        enabled
          ? 'Webhook enabled: waiting deliveries go out again.'
          : 'Webhook disabled: nothing is sent until it is enabled again.',
      );
    });
  const rotate = () => {
    setConfirming(undefined);
    void action.run(async () => {
      // Sent without an Idempotency-Key, so never a replay: the secret is there.
      const answer = (await ok(
        api.POST('/v1/webhooks/{webhookId}/rotate-secret', { params }),
      )) as WebhookWithSecret;
      const { secret: shownOnce, ...updated } = answer;
      webhook.set(() => updated);
      setRotated(answer);
    });
  };
  const remove = () => {
    setConfirming(undefined);
    void action.run(async () => {
      await ok(api.DELETE('/v1/webhooks/{webhookId}', { params }));
      navigate('/webhooks', { replace: true });
    });
  };
  const save = async (values: WebhookValues) => {
    const body = changesOf(current, values);
    if (!body) return 'unchanged' as const;
    const updated = await ok(api.PUT('/v1/webhooks/{webhookId}', { params, body }));
    webhook.set(() => updated);
    return valuesOf(updated);
  };
  const previousSigns =
    current.previousSecretExpiresAt && new Date(current.previousSecretExpiresAt) > new Date();

  return (
    <>
      <PageHeading>{`Webhook to ${current.url}`}</PageHeading>
      <p>
        <Link href="/webhooks">Back to the webhooks</Link>
      </p>
      <StatusMessage>{announcement}</StatusMessage>
      <ErrorAlert error={action.error} />

      {rotated && (
        <NewSecret
          // A new panel for each rotation: it takes focus again, so a second one is noticed.
          key={rotated.secret}
          title="The new signing secret"
          secret={rotated.secret}
          previousExpiresAt={rotated.previousSecretExpiresAt}
          onDone={() => setRotated(undefined)}
        />
      )}

      <section aria-labelledby="state-title" class="panel">
        <h2 id="state-title">State</h2>
        <p>
          <WebhookState webhook={current} />
        </p>
        <dl class="details">
          {current.owner && (
            <>
              <dt>Owner</dt>
              <dd>{current.owner.username}</dd>
            </>
          )}
          <dt>Events</dt>
          <dd>
            <EventList events={current.events} />
          </dd>
          <dt>Only pets</dt>
          <dd>
            <FilterList filters={current.filters} />
          </dd>
          <dt>Created</dt>
          <dd>{formatDate(current.createdAt)}</dd>
          <dt>Updated</dt>
          <dd>{formatDate(current.updatedAt)}</dd>
          {previousSigns && (
            <>
              <dt>Old secret</dt>
              <dd>Also signs until {formatDate(current.previousSecretExpiresAt)}</dd>
            </>
          )}
        </dl>
        <div class="actions">
          {current.enabled ? (
            <button
              type="button"
              class="button-secondary"
              disabled={action.busy}
              onClick={() => setEnabled(false)}
            >
              Disable
            </button>
          ) : (
            <button type="button" disabled={action.busy} onClick={() => setEnabled(true)}>
              Enable
            </button>
          )}
          <button
            type="button"
            class="button-secondary"
            disabled={action.busy}
            onClick={() => setConfirming('rotate')}
          >
            Rotate secret
          </button>
          <button
            type="button"
            class="button-danger"
            disabled={action.busy}
            onClick={() => setConfirming('delete')}
          >
            Delete
          </button>
        </div>
      </section>

      <WebhookForm
        key={id}
        title="Edit"
        submitLabel="Save changes"
        initial={valuesOf(current)}
        onSave={save}
        savedMessage="Changes saved."
      />

      <DeliveryLog webhookId={id} enabled={current.enabled} />

      {confirming === 'rotate' && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          onConfirm={rotate}
          onCancel={() => setConfirming(undefined)}
        >
          <p>
            A new secret is made and shown once. The old secret keeps signing every delivery
            alongside the new one for 24 hours, so your receiver can switch to the new one without
            refusing any; after that, only the new one signs.
          </p>
        </ConfirmDialog>
      )}
      {confirming === 'delete' && (
        <ConfirmDialog
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          onConfirm={remove}
          onCancel={() => setConfirming(undefined)}
        >
          <p>
            Nothing more is sent to {current.url}, and its delivery log is removed. This cannot be
            undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
