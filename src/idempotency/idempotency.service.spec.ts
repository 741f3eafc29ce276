import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ApiException } from '../common/errors/api-exception.js';
import { refusal } from '../../test/support/errors.js';
import { IdempotencyRepository, type StoredResponse } from './idempotency.repository.js';
import { IdempotencyService, LEASE_MS, RETENTION_MS, type Claim } from './idempotency.service.js';

const scope = { userId: 7, operation: 'POST /v1/pets', key: 'k-1' };
const created: StoredResponse = { status: 201, headers: {}, body: { id: 1 } };

/** Every repository method a stub. */
function fakeRepository() {
  return {
    claim: jest.fn<IdempotencyRepository['claim']>(),
    find: jest.fn<IdempotencyRepository['find']>(),
    complete: jest.fn<IdempotencyRepository['complete']>(),
    release: jest.fn<IdempotencyRepository['release']>(),
    deleteExpired: jest.fn<IdempotencyRepository['deleteExpired']>(),
  } satisfies Record<keyof IdempotencyRepository, unknown>;
}

describe(IdempotencyService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let sut: IdempotencyService;

  beforeEach(() => {
    repository = fakeRepository();
    sut = new IdempotencyService(repository as unknown as IdempotencyRepository);
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  describe('begin', () => {
    it('should run the request once it claimed the key, with a lease and the retention', async () => {
      repository.claim.mockResolvedValue(true);

      const start = await sut.begin(scope, 'f');

      expect(start).toEqual({ claim: { scope, token: expect.any(String) } });
      expect(repository.claim).toHaveBeenCalledWith(
        scope,
        'f',
        expect.any(String),
        LEASE_MS,
        RETENTION_MS,
      );
    });

    it('should replay the stored response of the same request', async () => {
      repository.claim.mockResolvedValue(false);
      repository.find.mockResolvedValue({ fingerprint: 'f', response: created });

      expect(await sut.begin(scope, 'f')).toEqual({ replay: created });
    });

    it('should answer 422 IDEMPOTENCY_KEY_REUSED to another request, running or done', async () => {
      repository.claim.mockResolvedValue(false);
      for (const found of [{ fingerprint: 'g' }, { fingerprint: 'g', response: created }]) {
        repository.find.mockResolvedValue(found);

        const error = await refusal(sut.begin(scope, 'f'));

        expect({ status: error.getStatus(), code: error.code }).toEqual({
          status: 422,
          code: 'IDEMPOTENCY_KEY_REUSED',
        });
      }
    });

    it('should answer 409 IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After while the same request runs', async () => {
      repository.claim.mockResolvedValue(false);
      repository.find.mockResolvedValue({ fingerprint: 'f' });

      const error = await refusal(sut.begin(scope, 'f'));

      expect(error.getStatus()).toBe(409);
      expect(error.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
      expect(error.headers).toEqual({ 'Retry-After': '1' });
    });

    it('should claim again when the key was released between the claim and the read', async () => {
      repository.claim.mockResolvedValueOnce(false).mockResolvedValueOnce(true);
      repository.find.mockResolvedValue(undefined);

      const start = await sut.begin(scope, 'f');

      expect(start).toHaveProperty('claim');
      expect(repository.claim).toHaveBeenCalledTimes(2);
      const [first, second] = repository.claim.mock.calls.map((call) => call[2]);
      expect(first).not.toBe(second);
    });

    it('should give up with 409 when the key keeps vanishing', async () => {
      repository.claim.mockResolvedValue(false);
      repository.find.mockResolvedValue(undefined);

      expect((await refusal(sut.begin(scope, 'f'))).code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
      expect(repository.claim).toHaveBeenCalledTimes(3);
    });
  });

  describe('fail', () => {
    const claim: Claim = { scope, token: 't' };

    it.each([
      ['a validation failure', new ApiException('VALIDATION_ERROR', 'bad')],
      ['a decoding failure', new ApiException('INVALID_IMAGE', 'bad')],
      ['an unexpected error', new ApiException('INTERNAL_ERROR', 'oops')],
      ['an outage', ApiException.retryLater('SERVICE_UNAVAILABLE', 'down', 5)],
    ])('should release the key after %s', async (_, error) => {
      await sut.fail(claim, error);

      expect(repository.release).toHaveBeenCalledWith(scope, 't');
      expect(repository.complete).not.toHaveBeenCalled();
    });

    it('should keep any other error as the answer, without a request id', async () => {
      repository.complete.mockResolvedValue(true);

      await sut.fail(
        claim,
        new ApiException('CONFLICT', 'name is already taken', { field: 'name' }),
      );

      expect(repository.release).not.toHaveBeenCalled();
      expect(repository.complete).toHaveBeenCalledWith(
        scope,
        't',
        {
          status: 409,
          headers: {},
          body: { code: 'CONFLICT', message: 'name is already taken', details: { field: 'name' } },
        },
        RETENTION_MS,
      );
    });

    it('should not fail the answer when the database cannot release the key, and warn', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      repository.release.mockRejectedValue(new Error('Connection terminated'));

      await expect(sut.fail(claim, new ApiException('INTERNAL_ERROR', 'oops'))).resolves.toBe(
        undefined,
      );

      expect(warn).toHaveBeenCalledWith(
        'POST /v1/pets for user 7: the key could not be released: Connection terminated',
      );
    });
  });

  describe('complete', () => {
    it('should not fail the answer when the response cannot be stored, and warn', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      repository.complete.mockRejectedValue(new Error('Connection terminated'));

      await expect(sut.complete({ scope, token: 't' }, created)).resolves.toBe(undefined);

      expect(warn).toHaveBeenCalledWith(
        'POST /v1/pets for user 7: the response could not be stored: Connection terminated',
      );
    });
  });
});
