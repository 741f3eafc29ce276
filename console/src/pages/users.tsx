import { useState } from 'preact/hooks';
import { UserStatus } from '../../../src/users/user-status.js';
import { api, ApiError, ok, type User } from '../api';
import { navigate, useLocation } from '../router';
import { useSession } from '../session';
import {
  ErrorAlert,
  Field,
  formatDate,
  PageHeading,
  Pager,
  StatusMessage,
  useLoad,
  useSubmit,
} from '../ui';

const PAGE_SIZE = 100;
const ROLES: User['role'][] = ['user', 'admin'];
const STATUS_NAMES: Record<User['userStatus'], string> = {
  [UserStatus.Active]: 'Active',
  [UserStatus.Disabled]: 'Disabled',
  [UserStatus.Pending]: 'Pending verification',
};

export function UsersPage() {
  const current = useSession();
  if (current?.role !== 'admin') {
    return (
      <>
        <PageHeading>Users</PageHeading>
        <p role="alert">Only administrators can manage users.</p>
      </>
    );
  }
  return <UserAdministration ownId={current.userId} />;
}

function UserAdministration({ ownId }: { ownId: number }) {
  const { query } = useLocation();
  const offset = Math.max(0, Number.parseInt(query.get('offset') ?? '0', 10) || 0);
  const users = useLoad(
    () => ok(api.GET('/v1/users', { params: { query: { limit: PAGE_SIZE, offset } } })),
    [offset],
  );
  const [announcement, setAnnouncement] = useState('');
  const change = useSubmit();

  const update = (
    user: User,
    body: { role?: User['role']; userStatus?: User['userStatus'] },
    done: string,
  ) =>
    void change.run(async () => {
      const updated = await ok(
        api.PUT('/v1/users/{id}', { params: { path: { id: user.id } }, body }),
      );
      const page = users.data!;
      users.set({ ...page, users: page.users.map((u) => (u.id === updated.id ? updated : u)) });
      setAnnouncement(done);
    });

  return (
    <>
      <PageHeading>Users</PageHeading>
      <CreateUserForm
        onCreated={(user) => {
          setAnnouncement(`User ${user.username} created.`);
          if (offset === 0) users.reload();
          else navigate('/users');
        }}
      />
      <h2>All users</h2>
      <StatusMessage>{announcement}</StatusMessage>
      <ErrorAlert error={users.error ?? change.error} />
      {users.data && (
        <>
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.data.users.map((user) => {
                const self = user.id === ownId;
                return (
                  <tr key={user.id}>
                    <th scope="row" data-label="Username">
                      {user.username}
                      {self && ' (you)'}
                    </th>
                    <td data-label="Email">{user.email}</td>
                    <td data-label="Role">
                      <label class="visually-hidden" for={`role-${user.id}`}>
                        Role of {user.username}
                      </label>
                      <select
                        id={`role-${user.id}`}
                        value={user.role}
                        disabled={self || change.busy}
                        onChange={(event) => {
                          const role = event.currentTarget.value as User['role'];
                          update(
                            user,
                            { role },
                            `${user.username} is now ${role === 'admin' ? 'an admin' : 'a user'}.`,
                          );
                        }}
                      >
                        {ROLES.map((role) => (
                          <option key={role} value={role}>
                            {role}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td data-label="Status">{STATUS_NAMES[user.userStatus]}</td>
                    <td data-label="Created">{formatDate(user.createdAt)}</td>
                    <td>
                      {!self &&
                        (user.userStatus === UserStatus.Disabled ? (
                          <button
                            type="button"
                            class="button-secondary"
                            disabled={change.busy}
                            onClick={() =>
                              update(
                                user,
                                { userStatus: UserStatus.Active },
                                `${user.username} enabled.`,
                              )
                            }
                          >
                            Enable<span class="visually-hidden"> {user.username}</span>
                          </button>
                        ) : (
                          <button
                            type="button"
                            class="button-danger"
                            disabled={change.busy}
                            onClick={() =>
                              update(
                                user,
                                { userStatus: UserStatus.Disabled },
                                `${user.username} disabled: their sign-ins and keys stop working.`,
                              )
                            }
                          >
                            Disable<span class="visually-hidden"> {user.username}</span>
                          </button>
                        ))}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager
            offset={offset}
            count={users.data.users.length}
            total={users.data.pagination.total}
            limit={PAGE_SIZE}
            hrefOf={(next) => (next > 0 ? `/users?offset=${next}` : '/users')}
          />
        </>
      )}
    </>
  );
}

function CreateUserForm({ onCreated }: { onCreated: (user: User) => void }) {
  const empty = { username: '', email: '', password: '', role: 'user' as User['role'] };
  const [values, setValues] = useState(empty);
  const { busy, error, run } = useSubmit();
  const fields = error instanceof ApiError ? error.fieldErrors : {};
  // A taken username or email comes back as CONFLICT naming its field.
  const conflictField =
    error instanceof ApiError && error.code === 'CONFLICT'
      ? (error.body.details as { field?: string } | undefined)?.field
      : undefined;
  const errorOf = (name: string) =>
    fields[name] ??
    (conflictField === name && error instanceof ApiError ? error.message : undefined);

  const set = (name: keyof typeof empty) => (event: { currentTarget: { value: string } }) =>
    setValues({ ...values, [name]: event.currentTarget.value });

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      onCreated(await ok(api.POST('/v1/users', { body: values })));
      setValues(empty);
    });
  };
  const fieldShown = Object.keys(fields).length > 0 || conflictField !== undefined;

  return (
    <form class="panel" onSubmit={onSubmit} noValidate>
      <h2>Create a user</h2>
      {!fieldShown && <ErrorAlert error={error} />}
      <Field
        name="username"
        label="Username"
        hint="3 to 32 letters, digits, _ . or -."
        error={errorOf('username')}
      >
        {(control) => (
          <input
            {...control}
            autocomplete="off"
            value={values.username}
            onInput={set('username')}
          />
        )}
      </Field>
      <Field name="email" label="Email" error={errorOf('email')}>
        {(control) => (
          <input
            {...control}
            type="email"
            autocomplete="off"
            value={values.email}
            onInput={set('email')}
          />
        )}
      </Field>
      <Field
        name="password"
        label="Password"
        hint="8 to 128 characters."
        error={errorOf('password')}
      >
        {(control) => (
          <input
            {...control}
            type="password"
            autocomplete="new-password"
            value={values.password}
            onInput={set('password')}
          />
        )}
      </Field>
      <Field name="role" label="Role" error={errorOf('role')}>
        {(control) => (
          <select {...control} value={values.role} onChange={set('role')}>
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" disabled={busy}>
        Create user
      </button>
    </form>
  );
}
