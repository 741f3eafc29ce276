import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { KeyObject } from 'node:crypto';
import type { Request } from 'express';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { TtlCache } from '../../common/cache/ttl-cache.js';
import { ROLES, type Principal, type Role } from '../../common/types/principal.js';
import { authConfig, type AuthConfig } from '../../config/auth.config.js';
import { canUseCredentials } from '../../users/user-lifecycle.js';
import { AccessStatesService } from '../access-states.service.js';
import { AuthErrors } from '../auth-errors.js';
import { JWT_KEY } from '../jwt-key.module.js';
import { MfaService } from '../mfa/mfa.service.js';
import { SessionsService } from '../sessions/sessions.service.js';

/** The only algorithm signed with and accepted: never `none`, never the token's choice. */
export const JWT_ALGORITHM = 'HS256';

/** docs/identity.md fixes a token's lifetime: `exp` = `iat` + 3600 and `expiresIn` = 3600. */
export const TOKEN_TTL_SECONDS = 3600;

/** The `scope` claim of a token that can only enrol a second factor (MFA_ENROLMENT_REQUIRED). */
export const MFA_ENROLMENT_SCOPE = 'mfa-enrolment';
/** How long such a token lasts: time to scan the QR code and type a first code. */
export const MFA_ENROLMENT_TOKEN_TTL_SECONDS = 600;

/** Verified tokens remembered at once; past it the oldest is forgotten, and verified again. */
const VERIFIED_TOKENS_MAX_ENTRIES = 10_000;

const bearerToken = ExtractJwt.fromAuthHeaderAsBearerToken();

interface Claims {
  sub?: unknown;
  username?: unknown;
  role?: unknown;
  jti?: unknown;
  sid?: unknown;
  scope?: unknown;
  exp?: unknown;
  iat?: unknown;
}

/**
 * Bearer tokens. passport-jwt checks the signature (HS256 only, with a KeyObject: a string
 * secret is re-imported on every verify), issuer, audience and expiry; `validate` checks
 * what jsonwebtoken does not (our claims and lifetime) and the account's current state.
 * Failures of the first kind reach JwtAuthGuard.handleRequest as `info`; `validate`
 * throws the documented error itself (docs/identity.md). A token verified once is not
 * verified again while it lasts (`authenticate`).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  /** The claims of tokens that jsonwebtoken has verified, by the token's text. */
  private readonly verified = new TtlCache<string, Claims>(
    TOKEN_TTL_SECONDS * 1000,
    VERIFIED_TOKENS_MAX_ENTRIES,
  );

  constructor(
    @Inject(authConfig.KEY) cfg: AuthConfig,
    @Inject(JWT_KEY) key: KeyObject,
    private readonly accessStates: AccessStatesService,
    private readonly sessions: SessionsService,
    private readonly mfa: MfaService,
  ) {
    super({
      jwtFromRequest: bearerToken,
      // passport-jwt's typings ask for a string or Buffer; jsonwebtoken takes a KeyObject.
      secretOrKey: key as unknown as string,
      algorithms: [JWT_ALGORITHM],
      issuer: cfg.jwtIssuer,
      audience: cfg.jwtAudience,
      passReqToCallback: true,
    });
  }

  /**
   * The same text is the same signature over the same claims: of what jsonwebtoken checked
   * when the token was first seen, only the expiry can have changed since, and it is
   * checked here as jsonwebtoken does. Verifying (an HMAC and two JSON parses) was the
   * largest share of the work of a read (docs/performance.md). The claim, account and
   * session checks (`principalOf`) still run on every request: they are never taken from here.
   */
  override authenticate(request: Request, options?: object): void {
    const token = bearerToken(request);
    const claims = token === null ? undefined : this.verified.get(token);
    if (claims === undefined || !unexpired(claims)) {
      super.authenticate(request, options);
      return;
    }
    this.principalOf(claims).then(
      (principal) => this.success(principal),
      (error: unknown) => this.error(error as Error),
    );
  }

  /** passport-jwt's callback, once it has verified the token that `request` carries. */
  async validate(request: Request, claims: Claims): Promise<Principal> {
    const principal = await this.principalOf(claims);
    this.verified.set(bearerToken(request)!, claims);
    return principal;
  }

  private async principalOf(claims: Claims): Promise<Principal> {
    const { userId, iat, sessionId, enrolmentOnly } = this.checkedClaims(claims);
    const [state, sessionLive] = await Promise.all([
      this.accessStates.of(userId),
      sessionId === undefined ? true : this.sessions.isLive(sessionId, userId),
    ]);
    if (!state) throw AuthErrors.invalidToken('its account no longer exists');
    if (!canUseCredentials(state.userStatus)) {
      throw AuthErrors.invalidToken('its account is not active');
    }
    if (!issuedAfter(iat, state.tokensValidAfter)) {
      throw AuthErrors.invalidToken(
        'it was issued before its account’s password changed or it was disabled',
      );
    }
    if (!sessionLive) throw AuthErrors.invalidToken('its session was revoked');
    // An account whose role requires a second factor and has none may only enrol one, with
    // whatever token it holds (one from before the rule, or from before an admin removed it).
    const mfaEnrolmentOnly =
      enrolmentOnly ||
      (this.mfa.requiredFor(state.role) && !(await this.mfa.isEnabledCached(userId)));
    // The current role, not the one at login: a demotion takes effect within the cache's TTL.
    return {
      kind: 'user',
      userId,
      role: state.role,
      sessionId,
      ...(mfaEnrolmentOnly && { mfaEnrolmentOnly }),
    };
  }

  private checkedClaims({ sub, username, role, jti, sid, scope, exp, iat }: Claims): {
    userId: number;
    iat: number;
    sessionId: number | undefined;
    enrolmentOnly: boolean;
  } {
    // jsonwebtoken accepts a token without exp; docs/identity.md does not.
    if (typeof exp !== 'number') throw AuthErrors.invalidToken('it has no expiry');
    // Ours live exactly one hour: anything longer was not issued here.
    if (typeof iat !== 'number' || exp - iat > TOKEN_TTL_SECONDS) {
      throw AuthErrors.invalidToken('its lifetime is not one hour');
    }
    if (
      !isId(sub) ||
      (sid !== undefined && !isId(sid)) ||
      (scope !== undefined && scope !== MFA_ENROLMENT_SCOPE) ||
      typeof username !== 'string' ||
      typeof jti !== 'string' ||
      !ROLES.includes(role as Role)
    ) {
      throw AuthErrors.invalidToken('its claims are incomplete');
    }
    return {
      userId: Number(sub),
      iat,
      sessionId: sid === undefined ? undefined : Number(sid),
      enrolmentOnly: scope === MFA_ENROLMENT_SCOPE,
    };
  }
}

/** jsonwebtoken's test: a token expires at the start of its `exp` second. */
function unexpired({ exp }: Claims): boolean {
  return typeof exp === 'number' && Math.floor(Date.now() / 1000) < exp;
}

/** A bigint id as a claim carries it: decimal digits, in a string. */
function isId(claim: unknown): claim is string {
  return typeof claim === 'string' && /^[1-9]\d{0,15}$/.test(claim);
}

/**
 * Whether a token issued at `iat` (whole seconds) postdates the account's cut-off
 * (milliseconds). A token of the cut-off's own second may predate it, so it is refused;
 * TokenService.issue dates a login made in that second to the next one.
 */
export function issuedAfter(iat: number, tokensValidAfter: Date | null): boolean {
  return tokensValidAfter === null || iat > Math.floor(tokensValidAfter.getTime() / 1000);
}
