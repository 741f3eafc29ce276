import { useState } from 'preact/hooks';
import { UserStatus } from '../../../src/users/user-status.js';
import { api, ApiError, messageOf, ok, type User } from '../api';
import { navigate, offsetOf, useLocation } from '../router';
import {
  AdminsOnly,
  ErrorAlert,
  Field,
  formatDate,
  formErrors,
  PageHeading,
  Pager,
  StatusMessage,
  useAnnouncement,
  useLoad,
  useSubmit,
} from '../ui';

const PAGE_SIZE = 100;
const ROLES: User['role'][] = ['customer', 'user', 'admin'];
const ROLE_NAMES: Record<User['role'], string> = {
  admin: 'an admin',
  user: 'a user',
  customer: 'a customer',
};
const STATUS_NAMES: Record<User['userStatus'], string> = {
  [UserStatus.Active]: 'Active',
  [UserStatus.Disabled]: 'Disabled',
  [UserStatus.Pending]: 'Pending verification',
};

export function UsersPage() {
  return (
    <AdminsOnly title="Users" task="manage users">
      {(admin) => <UserAdministration ownId={admin.userId} />}
    </AdminsOnly>
  );
}

function UserAdministration({ ownId }: { ownId: number }) {
  const { query } = useLocation();
  const offset = offsetOf(query);
  const users = useLoad(
    () => ok(api.GET('/v1/users', { params: { query: { limit: PAGE_SIZE, offset } } })),
    [offset],
  );
  const [announcement, announce] = useAnnouncement();
  const change = useSubmit();
  const routeOf = (at: number) => (at > 0 ? `/users?offset=${at}` : '/users');

  const update = (
    user: User,
    body: { role?: User['role']; userStatus?: User['userStatus'] },
    done: string,
  ) =>
    void change.run(async () => {
      const updated = await ok(
        api.PUT('/v1/users/{id}', { params: { path: { id: user.id } }, body }),
      );
      users.set((page) => ({
        users: page!.users.map((listed) => (listed.id === updated.id ? updated : listed)),
        pagination: page!.pagination,
      }));
      announce(done);
    });

  const added = (done: string) => {
    announce(done);
    // Users are listed oldest first: the new one is on the last page.
    const total = (users.data?.pagination.total ?? 0) + 1;
    const last = Math.floor((total - 1) / PAGE_SIZE) * PAGE_SIZE;
    if (last === offset) users.reload();
    else navigate(routeOf(last));
  };

  return (
    <>
      <PageHeading>Users</PageHeading>
      <div class="panels">
        <CreateUserForm onCreated={(user) => added(`User ${user.username} created.`)} />
        <InviteUserForm
          onInvited={(user) =>
            added(`${user.username} invited: a mail to ${user.email} lets them set a password.`)
          }
        />
      </div>
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
                    <td data-label="Role">{user.role}</td>
                    <td data-label="Status">{STATUS_NAMES[user.userStatus]}</td>
                    <td data-label="Created">{formatDate(user.createdAt)}</td>
                    <td class="row-actions">
                      {!self &&
                        ROLES.filter((role) => role !== user.role).map((role) => (
                          <button
                            key={role}
                            type="button"
                            class="button-secondary"
                            disabled={change.busy}
                            onClick={() =>
                              update(user, { role }, `${user.username} is now ${ROLE_NAMES[role]}.`)
                            }
                          >
                            Make {role}
                            <span class="visually-hidden"> {user.username}</span>
                          </button>
                        ))}
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
            hrefOf={routeOf}
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
  const { fields, general } = formErrors(error, Object.keys(empty));
  // A taken username or email comes back as CONFLICT naming its field: shown there.
  const conflictField =
    error instanceof ApiError && error.code === 'CONFLICT'
      ? (error.body.details as { field?: string } | undefined)?.field
      : undefined;
  const conflictShown = conflictField !== undefined && conflictField in empty;
  const errorOf = (name: string) =>
    fields[name] ?? (conflictShown && conflictField === name ? messageOf(error) : undefined);

  const set = (name: keyof typeof empty) => (event: { currentTarget: { value: string } }) =>
    setValues({ ...values, [name]: event.currentTarget.value });

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      onCreated(await ok(api.POST('/v1/users', { body: values })));
      setValues(empty);
    });
  };

  return (
    <form class="panel" onSubmit={onSubmit} noValidate aria-labelledby="create-title">
      <h2 id="create-title">Create a user</h2>
      {!conflictShown && <ErrorAlert error={general} />}
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

/** Both forms show a taken username or email (CONFLICT naming its field) under that field. */
function conflictOf(error: unknown, formFields: string[]): string | undefined {
  const field =
    error instanceof ApiError && error.code === 'CONFLICT'
      ? (error.body.details as { field?: string } | undefined)?.field
      : undefined;
  return field !== undefined && formFields.includes(field) ? field : undefined;
}

/** An account whose owner sets the password, from a mailed link (`invite: true`). */
function InviteUserForm({ onInvited }: { onInvited: (user: User) => void }) {
  const empty = { username: '', email: '', firstName: '', lastName: '' };
  const [values, setValues] = useState(empty);
  const { busy, error, run } = useSubmit();
  const { fields, general } = formErrors(error, Object.keys(empty));
  const conflictField = conflictOf(error, Object.keys(empty));
  const errorOf = (name: string) =>
    fields[name] ?? (conflictField === name ? messageOf(error) : undefined);
  const set = (name: keyof typeof empty) => (event: { currentTarget: { value: string } }) =>
    setValues({ ...values, [name]: event.currentTarget.value });

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    void run(async () => {
      // Names left empty are left out: the API refuses an empty one.
      const { firstName, lastName, ...required } = values;
      const body = {
        ...required,
        invite: true,
        ...(firstName ? { firstName } : {}),
        ...(lastName ? { lastName } : {}),
      };
      onInvited(await ok(api.POST('/v1/users', { body })));
      setValues(empty);
    });
  };

  return (
    <form class="panel" onSubmit={onSubmit} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a user</h2>
      <p>They get a mail with a link to set their password, valid for 7 days.</p>
      {conflictField === undefined && <ErrorAlert error={general} />}
      <Field name="invite-username" label="Username" error={errorOf('username')}>
        {(control) => (
          <input
            {...control}
            autocomplete="off"
            value={values.username}
            onInput={set('username')}
          />
        )}
      </Field>
      <Field name="invite-email" label="Email" error={errorOf('email')}>
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
      <Field name="invite-firstName" label="First name (optional)" error={errorOf('firstName')}>
        {(control) => (
          <input
            {...control}
            autocomplete="off"
            value={values.firstName}
            onInput={set('firstName')}
          />
        )}
      </Field>
      <Field name="invite-lastName" label="Last name (optional)" error={errorOf('lastName')}>
        {(control) => (
          <input
            {...control}
            autocomplete="off"
            value={values.lastName}
            onInput={set('lastName')}
          />
        )}
      </Field>
      <button type="submit" disabled={busy}>
        Invite
      </button>
    </form>
  );
}
