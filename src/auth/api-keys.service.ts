import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import {
  paginationOf,
  type Pagination,
  type LargePageQueryDto,
} from '../common/dto/pagination-query.dto.js';
import { ApiException } from '../common/errors/api-exception.js';
import {
  API_KEY_SCOPES,
  effectiveScopes,
  ROLE_SCOPES,
  type ApiKeyScope,
} from '../common/types/api-key-scope.js';
import type { Principal, Role } from '../common/types/principal.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import type { TxHost } from '../database/transactions.js';
import { DomainEvents } from '../events/domain-events.js';
import { OnDomainEvent } from '../events/event-handlers.decorator.js';
import type { UserUpdated, UserUpdateOrigin } from '../users/user-events.js';
import { canUseCredentials } from '../users/user-lifecycle.js';
import { UserLookupService } from '../users/user-lookup.service.js';
import { displayPrefixOf, generateApiKey, hashApiKey, parseApiKey } from './api-key-format.js';
import type { ApiKey } from './api-key.entity.js';
import {
  ApiKeysRepository,
  type ApiKeyCredentialRow,
  type ApiKeyLabel,
  type RolledApiKey,
} from './api-keys.repository.js';
import type { ApiKeyChanged } from './auth-events.js';
import { AuthErrors } from './auth-errors.js';
import { API_KEY_MAX_LIFETIME_DAYS, type CreateApiKeyDto } from './dto/create-api-key.dto.js';
import { DEFAULT_ROLL_GRACE_HOURS, type RollApiKeyDto } from './dto/roll-api-key.dto.js';
import { messageOf } from '../common/errors/message-of.js';

/** docs/identity.md: `lastUsedAt` is written at most once a minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface CreatedApiKey {
  apiKey: ApiKey;
  /** The full key: returned once, never stored. */
  key: string;
}

export interface ApiKeyPage {
  apiKeys: ApiKey[];
  pagination: Pagination;
}

/**
 * The scopes to store, deduplicated in API_KEY_SCOPES' order; null (every scope of the role)
 * when none were asked for. A scope the role does not allow is refused, naming `scopes`.
 */
function grantableScopes(role: Role, asked: readonly ApiKeyScope[] | undefined | null) {
  if (!asked) return null;
  const refused = asked.filter((scope) => !ROLE_SCOPES[role].includes(scope));
  if (refused.length > 0) {
    throw ApiException.validation([
      {
        field: 'scopes',
        message: `the role ${role} does not allow ${[...new Set(refused)].join(', ')}`,
      },
    ]);
  }
  return API_KEY_SCOPES.filter((scope) => asked.includes(scope));
}

/** Also ParseIdPipe's answer on the API key routes, for ids that cannot exist. */
export const apiKeyNotFound = (id: number | string) =>
  new ApiException('API_KEY_NOT_FOUND', `API key ${id} not found`);

@Injectable()
export class ApiKeysService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ApiKeys');
  private readonly pendingTouches = new Set<Promise<void>>();

  constructor(
    private readonly apiKeys: ApiKeysRepository,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
    private readonly users: UserLookupService,
    @InjectTransactionHost() private readonly txHost: TxHost,
    private readonly events: DomainEvents,
  ) {}

  /**
   * A password change revokes the user's keys in the same transaction, each published as
   * `auth.api_key_revoked` with the change as its cause: whoever knew the old password could have minted
   * keys, and they must not outlive it.
   */
  @OnDomainEvent('user.updated')
  async revokeKeysOnPasswordChange(event: UserUpdated): Promise<void> {
    if (!event.fields.includes('passwordHash')) return;
    for (const revoked of await this.apiKeys.deleteAllOfUser(event.userId)) {
      await this.publish('auth.api_key_revoked', event.userId, revoked, event.origin);
    }
  }

  /** `role` is the owner's current one, which bounds the scopes it may grant. */
  async create(userId: number, role: Role, dto: CreateApiKeyDto): Promise<CreatedApiKey> {
    // A key this deployment would refuse is of no use to its owner: say so now.
    if (!this.cfg.apiKeyModes.includes(dto.mode)) {
      throw ApiException.validation([
        { field: 'mode', message: `must be one of: ${this.cfg.apiKeyModes.join(', ')}` },
      ]);
    }
    const scopes = grantableScopes(role, dto.scopes);
    const key = generateApiKey(dto.mode);
    const apiKey = await this.txHost.withTransaction(async () => {
      await this.lockOwnerWithRoom(userId);
      const created = await this.apiKeys.insert({
        userId,
        name: dto.name,
        mode: dto.mode,
        scopes,
        prefix: displayPrefixOf(key),
        keyHash: hashApiKey(key),
        expiresAt: dto.expiresAt === undefined ? null : new Date(dto.expiresAt),
      });
      await this.publish('auth.api_key_created', userId, created);
      return created;
    });
    return { apiKey, key };
  }

  /**
   * A new key of the same name, mode and scopes; the old one keeps working for
   * `expiresInHours` (never longer than it would have). The old key's end is brought forward
   * before the count, so a roll with no grace fits where the user is at its limit.
   */
  async roll(userId: number, id: number, dto: RollApiKeyDto): Promise<CreatedApiKey> {
    return this.txHost.withTransaction(async () => {
      await this.lockOwner(userId);
      const old = await this.apiKeys.endOwnedWithin(
        userId,
        id,
        dto.expiresInHours ?? DEFAULT_ROLL_GRACE_HOURS,
      );
      if (!old) throw apiKeyNotFound(id);
      await this.checkRoom(userId);
      const key = generateApiKey(old.mode);
      const created = await this.apiKeys.insert({
        userId,
        name: old.name,
        mode: old.mode,
        scopes: old.scopes,
        prefix: displayPrefixOf(key),
        keyHash: hashApiKey(key),
        expiresAt: successorExpiry(old, Date.now()),
      });
      await this.publish('auth.api_key_created', userId, created);
      return { apiKey: created, key };
    });
  }

  async listOwn(userId: number, query: LargePageQueryDto): Promise<ApiKeyPage> {
    const offset = query.offset ?? 0;
    const { apiKeys, total } = await this.apiKeys.findPageOfUser(userId, query.limit, offset);
    return { apiKeys, pagination: paginationOf(query.limit, offset, apiKeys.length, total) };
  }

  /** Someone else's key is reported as missing, so that key ids do not leak. */
  async revoke(userId: number, id: number): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const revoked = await this.apiKeys.deleteOwned(userId, id);
      if (!revoked) throw apiKeyNotFound(id);
      await this.publish('auth.api_key_revoked', userId, revoked);
    });
  }

  /**
   * The principal a key acts as, else INVALID_API_KEY. Format, checksum and mode are
   * checked before the database; then one indexed query by hash, joined to the owner, on
   * every request, so that revocation, expiry and disabled accounts take effect at once.
   */
  async authenticate(rawKey: string): Promise<Principal> {
    const parsed = parseApiKey(rawKey);
    if (!parsed || !this.cfg.apiKeyModes.includes(parsed.mode)) throw AuthErrors.invalidApiKey();
    const apiKey = await this.apiKeys.findByHash(hashApiKey(rawKey));
    if (!apiKey || !canUseCredentials(apiKey.userStatus)) throw AuthErrors.invalidApiKey();
    if (apiKey.expired) throw AuthErrors.expiredApiKey(apiKey.expiresAt!);
    this.touch(apiKey);
    return {
      kind: 'api-key',
      userId: apiKey.userId,
      role: apiKey.role,
      apiKeyId: apiKey.id,
      apiKeyPrefix: apiKey.prefix,
      apiKeyScopes: effectiveScopes(apiKey.role, apiKey.scopes),
    };
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.pendingTouches);
  }

  /** Concurrent creates and rolls by one user queue on the owner's row, so counts are exact. */
  private async lockOwner(userId: number): Promise<void> {
    if (!(await this.users.lockForUpdate(userId))) {
      throw AuthErrors.invalidToken('its account no longer exists');
    }
  }

  private async lockOwnerWithRoom(userId: number): Promise<void> {
    await this.lockOwner(userId);
    await this.checkRoom(userId);
  }

  private async checkRoom(userId: number): Promise<void> {
    const limit = this.cfg.apiKeysPerUser;
    if ((await this.apiKeys.countActiveOfUser(userId)) >= limit) {
      throw new ApiException(
        'API_KEY_LIMIT_REACHED',
        `A user holds at most ${limit} API keys; revoke one first`,
        { limit },
      );
    }
  }

  /** Its label only: never the hash. */
  private publish(
    type: ApiKeyChanged['type'],
    userId: number,
    { id, name, mode, prefix }: ApiKeyLabel,
    cause?: UserUpdateOrigin,
  ): Promise<void> {
    return this.events.publish({
      type,
      subject: `api_key:${id}`,
      userId,
      apiKey: { id, name, mode, prefix },
      ...(cause && { cause }),
    });
  }

  /** Off the request's path: the request does not wait, and a failure is only logged. */
  private touch(apiKey: ApiKeyCredentialRow): void {
    const now = Date.now();
    if (apiKey.lastUsedAt && now - apiKey.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
    const touch = this.apiKeys
      .touch(apiKey.id)
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.error(`Could not record use of API key ${apiKey.id}`, messageOf(error));
        },
      )
      .finally(() => this.pendingTouches.delete(touch));
    this.pendingTouches.add(touch);
  }
}

/**
 * A rolled key's successor lives as long as the old key was made to (from its creation to
 * its end before the roll), counted from now, within the longest lifetime; a key that never
 * expired is followed by one that never does.
 */
function successorExpiry(old: RolledApiKey, now: number): Date | null {
  if (old.previousExpiresAt === null) return null;
  const lifetime = old.previousExpiresAt.getTime() - old.createdAt.getTime();
  return new Date(now + Math.min(lifetime, API_KEY_MAX_LIFETIME_DAYS * 86_400_000));
}
