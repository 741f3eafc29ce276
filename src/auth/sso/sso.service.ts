import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import * as oidc from 'openid-client';
import { ApiException } from '../../common/errors/api-exception.js';
import { messageOf } from '../../common/errors/message-of.js';
import { authConfig, type AuthConfig } from '../../config/auth.config.js';
import { oidcConfig, type OidcConfig } from '../../config/oidc.config.js';
import type { TxHost } from '../../database/transactions.js';
import { DomainEvents } from '../../events/domain-events.js';
import { awaitsVerification, canUseCredentials } from '../../users/user-lifecycle.js';
import { UsersService } from '../../users/users.service.js';
import type { SessionClient } from '../sessions/session-client.decorator.js';
import { SessionsService, type IssuedRefreshToken } from '../sessions/sessions.service.js';
import { SsoErrors } from './sso-errors.js';
import type { SsoState } from './sso-state.js';

/** What the provider vouches for, from the id_token or, lacking an address, from userinfo. */
interface ProviderPerson {
  [claim: string]: unknown;
  email?: unknown;
  email_verified?: unknown;
  given_name?: unknown;
  family_name?: unknown;
  preferred_username?: unknown;
}

/** How long a person waits before trying again when the provider cannot be reached. */
const PROVIDER_RETRY_AFTER_SECONDS = 30;
const NAME_MAX_LENGTH = 100;

/**
 * Single sign-on with the OpenID Connect provider of OIDC_ISSUER (docs/identity.md, "Single
 * sign-on"): the authorization code flow with PKCE, state and nonce, by openid-client, which
 * checks the id_token's signature, issuer, audience, expiry and nonce. The person's verified
 * address names its account; a new address makes a customer unless registration is closed.
 */
@Injectable()
export class SsoService {
  private readonly logger = new Logger('Sso');
  /** Discovered on first use, so that a provider down at start-up does not stop the service. */
  private provider: Promise<oidc.Configuration> | undefined;

  constructor(
    @Inject(oidcConfig.KEY) private readonly cfg: OidcConfig,
    @Inject(authConfig.KEY) private readonly auth: AuthConfig,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly events: DomainEvents,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /** The provider's name for the console, or undefined without single sign-on. */
  get displayName(): string | undefined {
    return this.cfg.issuer === undefined ? undefined : this.cfg.displayName;
  }

  /** Where to send the browser, and what its callback will be checked against. */
  async begin(redirectUri: string): Promise<{ url: URL; state: SsoState }> {
    const config = await this.configuration();
    const state = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      state: state.state,
      nonce: state.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(state.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, state };
  }

  /**
   * Checks the provider's answer at `callbackUrl` against `expected`, finds or makes the
   * account of its verified address, and starts a session of it, as a login does.
   */
  async finish(
    callbackUrl: URL,
    expected: SsoState,
    client: SessionClient,
  ): Promise<IssuedRefreshToken> {
    const config = await this.configuration();
    const person = await this.personAt(config, callbackUrl, expected);
    const email = this.verifiedEmailOf(person);
    const holder = await this.users.findByEmail(email);
    // An unverified sign-up holding the address proves nothing: its owner never read its mail.
    const linked = holder && !awaitsVerification(holder.userStatus) ? holder : undefined;
    if (linked && !canUseCredentials(linked.userStatus)) throw SsoErrors.failed('account disabled');
    if (!linked && this.auth.registration === 'closed') throw SsoErrors.registrationClosed();
    return this.txHost.withTransaction(async () => {
      const user =
        linked ??
        (await this.users.registerFromProvider(
          {
            email,
            firstName: nameOf(person.given_name),
            lastName: nameOf(person.family_name),
          },
          typeof person.preferred_username === 'string'
            ? person.preferred_username
            : email.slice(0, email.lastIndexOf('@')),
        ));
      const session = await this.sessions.start(user.id, client);
      await this.events.publish({
        type: 'auth.sso_logged_in',
        subject: `session:${session.sessionId}`,
        sessionId: session.sessionId,
        userId: user.id,
        username: user.username,
        created: !linked,
      });
      return session;
    });
  }

  private async personAt(
    config: oidc.Configuration,
    callbackUrl: URL,
    expected: SsoState,
  ): Promise<ProviderPerson> {
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        pkceCodeVerifier: expected.codeVerifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw SsoErrors.failed('no id_token');
      if (claims.email !== undefined) return claims;
      return await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    } catch (error) {
      if (error instanceof ApiException) throw error;
      if (error instanceof TypeError) throw this.unreachable(error);
      this.logger.warn(`Single sign-on refused: ${messageOf(error)}`);
      throw SsoErrors.failed(reasonOf(error));
    }
  }

  private verifiedEmailOf(person: ProviderPerson): string {
    const email = typeof person.email === 'string' ? person.email.trim() : '';
    // Some providers send the flag as a string.
    const verified = person.email_verified === true || person.email_verified === 'true';
    if (email === '' || !verified) throw SsoErrors.emailNotVerified();
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    const allowed = this.cfg.allowedDomains;
    if (allowed.length > 0 && !allowed.includes(domain)) throw SsoErrors.domainNotAllowed();
    return email;
  }

  private configuration(): Promise<oidc.Configuration> {
    const issuer = this.cfg.issuer;
    if (issuer === undefined) return Promise.reject(SsoErrors.notConfigured());
    this.provider ??= oidc
      .discovery(
        new URL(issuer),
        this.cfg.clientId,
        undefined,
        oidc.ClientSecretBasic(this.cfg.clientSecret),
        // Plain HTTP only to a provider on this machine: tests and development.
        isLoopbackHttp(issuer) ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        this.provider = undefined;
        throw this.unreachable(error);
      });
    return this.provider;
  }

  private unreachable(error: unknown): ApiException {
    this.logger.warn(`OpenID Connect provider unreachable: ${messageOf(error)}`);
    return ApiException.retryLater(
      'SERVICE_UNAVAILABLE',
      'The single sign-on provider cannot be reached; try again later',
      PROVIDER_RETRY_AFTER_SECONDS,
    );
  }
}

function isLoopbackHttp(issuer: string): boolean {
  const { protocol, hostname } = new URL(issuer);
  return protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(hostname);
}

function nameOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, NAME_MAX_LENGTH) : undefined;
}

/** The provider's error code, or which check of openid-client failed. */
function reasonOf(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    return error.error;
  }
  // openid-client's message is the kind of check; its cause names the claim or parameter.
  return messageOf(error instanceof oidc.ClientError && error.cause ? error.cause : error);
}
