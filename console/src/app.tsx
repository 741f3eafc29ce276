import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { signOut } from './api';
import {
  ForgotPasswordPage,
  RegisterPage,
  ResetPasswordPage,
  VerifyEmailPage,
} from './pages/accounts';
import { AdoptionsPage, MyAdoptionsPage } from './pages/adoptions';
import { ApiKeysPage } from './pages/api-keys';
import { AuditPage } from './pages/audit';
import { DashboardPage } from './pages/dashboard';
import { PetDetailPage } from './pages/pet-detail';
import { PetFormPage } from './pages/pet-form';
import { PetImportPage } from './pages/pet-import';
import { PetsPage } from './pages/pets-list';
import { SecurityPage } from './pages/security';
import { SessionsPage } from './pages/sessions';
import { SignInPage } from './pages/sign-in';
import { UsersPage } from './pages/users';
import { DeliveryPage } from './pages/webhook-deliveries';
import { WebhookPage } from './pages/webhook-detail';
import { WebhooksPage } from './pages/webhooks';
import { Link, navigate, useLocation } from './router';
import { type Session, session, useSession } from './session';
import { PageHeading } from './ui';

function pageOf(path: string): JSX.Element {
  if (path === '/' || path === '/pets') return <PetsPage />;
  if (path === '/pets/new') return <PetFormPage />;
  if (path === '/pets/import') return <PetImportPage />;
  const pet = /^\/pets\/(\d+)(\/edit)?$/.exec(path);
  if (pet) {
    const id = Number(pet[1]);
    return pet[2] ? <PetFormPage key={`edit-${id}`} id={id} /> : <PetDetailPage key={id} id={id} />;
  }
  if (path === '/adoptions') return <AdoptionsPage />;
  if (path === '/my-adoptions') return <MyAdoptionsPage />;
  if (path === '/settings/api-keys') return <ApiKeysPage />;
  if (path === '/settings/sessions') return <SessionsPage />;
  if (path === '/settings/security') return <SecurityPage />;
  if (path === '/users') return <UsersPage />;
  if (path === '/webhooks') return <WebhooksPage />;
  if (path === '/audit') return <AuditPage />;
  if (path === '/dashboard') return <DashboardPage />;
  const webhook = /^\/webhooks\/(\d+)(?:\/deliveries\/(\d+))?$/.exec(path);
  if (webhook) {
    const id = Number(webhook[1]);
    return webhook[2] ? (
      <DeliveryPage key={`delivery-${webhook[2]}`} webhookId={id} deliveryId={Number(webhook[2])} />
    ) : (
      <WebhookPage key={id} id={id} />
    );
  }
  return (
    <>
      <PageHeading>Page not found</PageHeading>
      <p>
        <Link href="/pets">Go to the pets</Link>
      </p>
    </>
  );
}

function NavLink({ href, path, children }: { href: string; path: string; children: string }) {
  const here = path === href || path.startsWith(`${href}/`) || (href === '/pets' && path === '/');
  return (
    <Link href={href} aria-current={here ? 'page' : undefined}>
      {children}
    </Link>
  );
}

/** Where an account held to enrolment is kept: the one page its token opens. */
const SECURITY = '/settings/security';

function Header({ current, path }: { current: Session; path: string }) {
  return (
    <header class="top">
      <p class="brand">Pet store console</p>
      {current.heldToEnrolment ? (
        <nav aria-label="Main">
          <NavLink href={SECURITY} path={path}>
            Security
          </NavLink>
        </nav>
      ) : (
        <MainNav current={current} path={path} />
      )}
      <div class="account">
        <span>
          Signed in as <strong>{current.username}</strong> ({current.role})
        </span>
        <button type="button" class="button-secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </header>
  );
}

function MainNav({ current, path }: { current: Session; path: string }) {
  return (
    <nav aria-label="Main">
      <NavLink href="/pets" path={path}>
        Pets
      </NavLink>
      {current.role === 'customer' ? (
        <NavLink href="/my-adoptions" path={path}>
          My adoptions
        </NavLink>
      ) : (
        <NavLink href="/adoptions" path={path}>
          Adoptions
        </NavLink>
      )}
      <NavLink href="/settings/api-keys" path={path}>
        API keys
      </NavLink>
      <NavLink href="/settings/sessions" path={path}>
        Sessions
      </NavLink>
      <NavLink href={SECURITY} path={path}>
        Security
      </NavLink>
      {current.role !== 'customer' && (
        <NavLink href="/webhooks" path={path}>
          Webhooks
        </NavLink>
      )}
      {current.role === 'admin' && (
        <>
          <NavLink href="/users" path={path}>
            Users
          </NavLink>
          <NavLink href="/audit" path={path}>
            Audit
          </NavLink>
          <NavLink href="/dashboard" path={path}>
            Dashboard
          </NavLink>
        </>
      )}
    </nav>
  );
}

/** Pages for the signed out: the ways into an account, and the targets of mailed links. */
const ACCOUNT_PAGES: Record<string, () => JSX.Element> = {
  '/register': RegisterPage,
  '/verify-email': VerifyEmailPage,
  '/forgot-password': ForgotPasswordPage,
  '/reset-password': ResetPasswordPage,
};

export function App() {
  const current = useSession();
  const { path } = useLocation();
  const held = current?.heldToEnrolment === true;
  useEffect(() => {
    if (held && path !== SECURITY) navigate(SECURITY, { replace: true });
  }, [held, path]);
  const AccountPage = ACCOUNT_PAGES[path];
  if (AccountPage) return <AccountPage />;
  if (session.restoring) {
    return (
      <main id="main" class="sign-in">
        <p role="status">Loading…</p>
      </main>
    );
  }
  // Signed out, every other route shows the sign-in form; the route is kept for afterwards.
  if (!current) return <SignInPage />;
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header current={current} path={path} />
      <main id="main" tabIndex={-1}>
        {pageOf(held ? SECURITY : path)}
      </main>
    </>
  );
}
