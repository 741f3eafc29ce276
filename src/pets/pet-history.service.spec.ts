import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { Principal } from '../common/types/principal.js';
import { refusal } from '../../test/support/errors.js';
import { fakeTxHost } from '../../test/support/transactions.js';
import { decodeHistoryCursor } from './pet-history-cursor.js';
import { PetHistoryService } from './pet-history.service.js';
import type { PendingPetEventRow, PetEventRow, PetsRepository } from './pets.repository.js';

const admin: Principal = { kind: 'user', userId: 1, role: 'admin' };
const user: Principal = { kind: 'user', userId: 2, role: 'user' };

function eventRow(sequence: number, fields: Partial<PetEventRow> = {}): PetEventRow {
  return {
    sequence,
    id: `evt_${String(sequence).padStart(32, '0')}`,
    type: 'pet.updated',
    occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)),
    actorUserId: 2,
    actorApiKeyPrefix: null,
    changedFields: ['name'],
    statusFrom: null,
    statusTo: null,
    ...fields,
  };
}

function pendingRow(sequence: number, fields: Partial<PendingPetEventRow> = {}) {
  const at = new Date(Date.UTC(2026, 0, 1));
  return {
    ...eventRow(sequence),
    petId: 4,
    pet: {
      id: 4,
      name: 'Rex',
      status: 'pending',
      photoUrls: [],
      age: null,
      breed: null,
      description: null,
      createdAt: at,
      updatedAt: at,
      categoryId: 1,
      categoryName: 'Dogs',
      categoryDescription: null,
      tags: [],
      versionTag: '2.1',
    },
    ...fields,
  } satisfies PendingPetEventRow;
}

function fakeRepository() {
  return {
    findHistoryPage: jest.fn<PetsRepository['findHistoryPage']>(),
    lockPublishing: jest.fn<PetsRepository['lockPublishing']>(),
    findUnpublished: jest.fn<PetsRepository['findUnpublished']>(),
    markPublished: jest.fn<PetsRepository['markPublished']>(),
  };
}

describe(PetHistoryService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let txHost: ReturnType<typeof fakeTxHost>;
  let sut: PetHistoryService;

  beforeEach(() => {
    repository = fakeRepository();
    txHost = fakeTxHost();
    sut = new PetHistoryService(repository as unknown as PetsRepository, txHost.asHost());
  });

  describe('list', () => {
    it('should give a cursor below the page’s last event, for this pet', async () => {
      repository.findHistoryPage.mockResolvedValue({
        events: [eventRow(9), eventRow(7)],
        total: 5,
        petExists: true,
      });

      const page = await sut.list(4, { limit: 2 }, user);

      expect(repository.findHistoryPage).toHaveBeenCalledWith(4, {
        limit: 2,
        offset: 0,
        beforeSequence: undefined,
      });
      expect(page.pagination).toMatchObject({ limit: 2, offset: 0, total: 5, hasMore: true });
      expect(decodeHistoryCursor(page.pagination.nextCursor!, { petId: 4 })).toEqual({
        petId: 4,
        sequence: 7,
        offset: 2,
      });
    });

    it('should give an existing pet without history an empty page', async () => {
      repository.findHistoryPage.mockResolvedValue({ events: [], total: 0, petExists: true });

      const page = await sut.list(4, { limit: 20 }, user);

      expect(page).toEqual({
        events: [],
        pagination: { limit: 20, offset: 0, total: 0, hasMore: false },
      });
    });

    it.each([
      ['a deleted pet to a non-admin', user, 2],
      ['a pet that never existed to an admin', admin, 0],
    ])('should answer 404 PET_NOT_FOUND for %s', async (_label, caller, total) => {
      repository.findHistoryPage.mockResolvedValue({ events: [], total, petExists: false });

      expect((await refusal(sut.list(4, { limit: 20 }, caller))).code).toBe('PET_NOT_FOUND');
    });

    it('should show a deleted pet’s history to an admin', async () => {
      const events = [eventRow(3, { type: 'pet.deleted', changedFields: null })];
      repository.findHistoryPage.mockResolvedValue({ events, total: 1, petExists: false });

      expect((await sut.list(4, { limit: 20 }, admin)).events).toBe(events);
    });
  });

  describe('publishPending', () => {
    it('should publish nothing, and read nothing, when another instance holds the lock', async () => {
      repository.lockPublishing.mockResolvedValue(false);
      const publisher = jest.fn(() => Promise.resolve());

      expect(await sut.publishPending(publisher)).toBe(0);

      expect(repository.findUnpublished).not.toHaveBeenCalled();
      expect(publisher).not.toHaveBeenCalled();
    });

    it('should hand the events to the publisher in the transaction, then mark them published', async () => {
      repository.lockPublishing.mockResolvedValue(true);
      repository.findUnpublished.mockResolvedValue([
        pendingRow(3),
        pendingRow(5, { type: 'pet.status_changed', statusFrom: 'available', statusTo: 'pending' }),
      ]);
      const calls: string[] = [];
      const inTransaction = (call: string) => calls.push(txHost.active ? call : `${call} outside`);
      repository.markPublished.mockImplementation(() => {
        inTransaction('mark');
        return Promise.resolve();
      });
      const publisher = jest.fn((_events: unknown) => {
        inTransaction('publish');
        return Promise.resolve();
      });

      expect(await sut.publishPending(publisher, 10)).toBe(2);

      expect(repository.findUnpublished).toHaveBeenCalledWith(10);
      expect(calls).toEqual(['publish', 'mark']);
      expect(publisher).toHaveBeenCalledWith([
        expect.objectContaining({ sequence: 3, type: 'pet.updated', petId: 4 }),
        expect.objectContaining({
          sequence: 5,
          type: 'pet.status_changed',
          data: expect.objectContaining({
            id: 4,
            status: 'pending',
            from: 'available',
            to: 'pending',
          }),
        }),
      ]);
      expect(repository.markPublished).toHaveBeenCalledWith([3, 5]);
    });

    it('should mark nothing published when the publisher throws', async () => {
      repository.lockPublishing.mockResolvedValue(true);
      repository.findUnpublished.mockResolvedValue([pendingRow(3)]);

      await expect(sut.publishPending(() => Promise.reject(new Error('down')))).rejects.toThrow(
        'down',
      );

      expect(repository.markPublished).not.toHaveBeenCalled();
    });
  });

  describe('onRecorded', () => {
    it('should call every listener, and keep going past one that throws, logging it', () => {
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const calls: string[] = [];
      sut.onRecorded(() => {
        calls.push('first');
        throw new Error('broken listener');
      });
      sut.onRecorded(() => calls.push('second'));

      sut.notifyRecorded();

      expect(calls).toEqual(['first', 'second']);
      expect(error).toHaveBeenCalledWith(
        'A listener of recorded pet events failed',
        expect.stringContaining('broken listener'),
      );
      error.mockRestore();
    });
  });
});
