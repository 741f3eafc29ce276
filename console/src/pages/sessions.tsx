import { useState } from 'preact/hooks';
import { api, ok, type SignInSession } from '../api';
import {
  ConfirmDialog,
  ErrorAlert,
  formatDate,
  PageHeading,
  StatusMessage,
  useAnnouncement,
  useLoad,
  useSubmit,
} from '../ui';

/** Where a session signed in from, in a few words. */
function deviceOf(session: SignInSession): string {
  return session.userAgent ?? 'Unknown browser or program';
}

export function SessionsPage() {
  const sessions = useLoad(async () => (await ok(api.GET('/v1/auth/sessions'))).sessions, []);
  const [revoking, setRevoking] = useState<SignInSession | 'others'>();
  const [announcement, announce] = useAnnouncement();
  const revoke = useSubmit();
  const others = (sessions.data ?? []).filter((listed) => !listed.current);

  const end = (ended: SignInSession[], done: string) => {
    setRevoking(undefined);
    void revoke.run(async () => {
      const gone = new Set<number>();
      try {
        // One by one: the API ends the caller's own sessions singly.
        for (const listed of ended) {
          await ok(api.DELETE('/v1/auth/sessions/{id}', { params: { path: { id: listed.id } } }));
          gone.add(listed.id);
        }
        announce(done);
      } finally {
        sessions.set((data) => (data ?? []).filter(({ id }) => !gone.has(id)));
      }
    });
  };

  return (
    <>
      <PageHeading>Sessions</PageHeading>
      <p>
        Each sign-in is a session, kept for 30 days after its last use. Ending one signs that device
        out within a minute.
      </p>
      <StatusMessage>{announcement}</StatusMessage>
      <ErrorAlert error={sessions.error ?? revoke.error} />
      {sessions.loading && !sessions.data && <p role="status">Loading sessions…</p>}
      {sessions.data && (
        <>
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Address</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((listed) => (
                <tr key={listed.id}>
                  <th scope="row" data-label="Device">
                    {deviceOf(listed)}
                    {listed.current && (
                      <>
                        {' '}
                        <strong class="badge">This device</strong>
                      </>
                    )}
                  </th>
                  <td data-label="Address">{listed.ip ?? 'Unknown'}</td>
                  <td data-label="Signed in">{formatDate(listed.createdAt)}</td>
                  <td data-label="Last used">{formatDate(listed.lastUsedAt)}</td>
                  <td class="row-actions">
                    {!listed.current && (
                      <button
                        type="button"
                        class="button-danger"
                        disabled={revoke.busy}
                        onClick={() => setRevoking(listed)}
                      >
                        Revoke<span class="visually-hidden"> {deviceOf(listed)}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {others.length > 0 && (
            <p>
              <button
                type="button"
                class="button-danger"
                disabled={revoke.busy}
                onClick={() => setRevoking('others')}
              >
                Sign out everywhere else
              </button>
            </p>
          )}
        </>
      )}
      {revoking && (
        <ConfirmDialog
          title={revoking === 'others' ? 'Sign out everywhere else?' : 'Revoke this session?'}
          confirmLabel={revoking === 'others' ? 'Sign them out' : 'Revoke'}
          onCancel={() => setRevoking(undefined)}
          onConfirm={() =>
            revoking === 'others'
              ? end(others, 'Every other session has ended.')
              : end([revoking], 'Session ended.')
          }
        >
          <p>
            {revoking === 'others'
              ? `${others.length} other session${others.length === 1 ? '' : 's'} will be signed out.`
              : `${deviceOf(revoking)} will be signed out.`}{' '}
            This device stays signed in.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
