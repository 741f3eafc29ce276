import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { EntityManager } from 'typeorm';
import type { CreatePetDto } from '../src/pets/dto/create-pet.dto.js';
import type { PetFiltersQueryDto } from '../src/pets/dto/pet-filters-query.dto.js';
import type { PetSort } from '../src/pets/pet-sort.js';
import type { PetStatus } from '../src/pets/pet-status.js';
import { toPetResponse } from '../src/pets/pet.mapper.js';
import { resolveJwtSecret } from '../src/auth/jwt-secret.js';
import { CursorSigner } from '../src/common/dto/page-cursor.js';
import { authConfig } from '../src/config/auth.config.js';
import { databaseConfig } from '../src/config/database.config.js';
import { PreparedStatements } from '../src/database/prepared-statements.js';
import { transactionWithAfterCommit, type TxHost } from '../src/database/transactions.js';
import { NO_ACTOR } from '../src/pets/pet-actor.js';
import type { DomainEvents } from '../src/events/domain-events.js';
import { OutboxRepository } from '../src/events/outbox.repository.js';
import { PetsRepository } from '../src/pets/pets.repository.js';
import { PetsService } from '../src/pets/pets.service.js';
import { WEBHOOK_FAN_OUT } from '../src/webhooks/delivery/webhook-fan-out.js';
import { BARE_RATE_LIMIT, inTransaction, pool, readJson, send, serve } from './bare-server.js';

/**
 * The app-SQL baseline of `npm run bench`: the app's own pets service, repository SQL and
 * mapper behind node:http, without Nest, Express, guards, validation or TypeORM (a pg pool
 * stands in for the DataSource). Its distance to the app is the framework's cost.
 */
const queryOn =
  (db: pg.Pool | pg.PoolClient) =>
  async (sql: string, params?: unknown[]): Promise<unknown> => {
    const result = await db.query(sql, params);
    // As TypeORM's query() answers: UPDATE and DELETE give [rows, affected].
    return result.command === 'UPDATE' || result.command === 'DELETE'
      ? [result.rows, result.rowCount]
      : result.rows;
  };
const managerOn = (db: pg.Pool | pg.PoolClient) =>
  ({ query: queryOn(db) }) as unknown as EntityManager;
// The app's transaction host in miniature: the transaction's manager in AsyncLocalStorage.
const current = new AsyncLocalStorage<EntityManager>();
const poolManager = managerOn(pool);
const txHost = {
  get tx() {
    return current.getStore() ?? poolManager;
  },
  isTransactionActive: () => current.getStore() !== undefined,
  withTransaction: <T>(work: () => Promise<T>) =>
    current.getStore()
      ? work()
      : transactionWithAfterCommit(
          (inside) => inTransaction((client) => current.run(managerOn(client), inside)),
          work,
        ),
} as unknown as TxHost;
const prepared = new PreparedStatements(process.env.DATABASE_PREPARED_STATEMENTS !== 'false');
const repository = new PetsRepository(txHost, prepared, databaseConfig());
// Writes record and publish their events with the same SQL as the app's (the webhooks'
// outbox rows, which no worker drains here); nothing authenticates here.
const outbox = new OutboxRepository(txHost, prepared);
const events = {
  publish: async (...published) => {
    await outbox.add(published.map((event) => ({ consumer: WEBHOOK_FAN_OUT, event, gated: true })));
  },
} as Pick<DomainEvents, 'publish'> as DomainEvents;
// The app's cursor key, from the same secret the app resolves.
const cursors = new CursorSigner(await resolveJwtSecret(authConfig()));
const pets = new PetsService(repository, events, txHost, cursors);

/** The list's and the facets' filters, unvalidated (the bench sends only valid ones). */
const filtersOf = (query: URLSearchParams): PetFiltersQueryDto => {
  const number = (name: string) => (query.has(name) ? Number(query.get(name)) : undefined);
  return {
    category: query.get('category') ?? undefined,
    status: (query.get('status') as PetStatus | null) ?? undefined,
    q: query.get('q') ?? undefined,
    tag: query.has('tag') ? query.getAll('tag') : undefined,
    breed: query.get('breed') ?? undefined,
    minAge: number('minAge'),
    maxAge: number('maxAge'),
    createdAfter: query.get('createdAfter') ?? undefined,
    createdBefore: query.get('createdBefore') ?? undefined,
  };
};

serve('baseline', async (req, res, url) => {
  const id = /^\/v1\/pets\/(\d+)$/.exec(url.pathname)?.[1];
  if (req.method === 'GET' && url.pathname === '/v1/pets') {
    const query = url.searchParams;
    const page = await pets.list({
      ...filtersOf(query),
      limit: Number(query.get('limit') ?? 20),
      offset: query.has('offset') ? Number(query.get('offset')) : undefined,
      sort: (query.get('sort') as PetSort | null) ?? undefined,
      cursor: query.get('cursor') ?? undefined,
    });
    return send(res, 200, { pets: page.pets.map(toPetResponse), pagination: page.pagination });
  }
  if (req.method === 'GET' && url.pathname === '/v1/pets/facets') {
    return send(res, 200, await pets.facets(filtersOf(url.searchParams)));
  }
  if (req.method === 'GET' && id) return send(res, 200, toPetResponse(await pets.findOne(+id)));
  if (req.method === 'POST' && url.pathname === '/v1/pets') {
    const created = await pets.create((await readJson(req)) as unknown as CreatePetDto, NO_ACTOR);
    return send(res, 201, toPetResponse(created));
  }
  if (req.method === 'PUT' && id) {
    return send(res, 200, toPetResponse(await pets.update(+id, await readJson(req), NO_ACTOR)));
  }
  if (req.method === 'GET' && url.pathname === '/v1/rate-limit') {
    return send(res, 200, BARE_RATE_LIMIT);
  }
  send(res, 404, { code: 'NOT_FOUND' });
});
