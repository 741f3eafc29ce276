import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Principal } from '../common/types/principal.js';
import { refusal } from '../../test/support/errors.js';
import { petSubject, type PetEvent } from './pet-events.js';
import type { PetEventsRepository } from './pet-events.repository.js';
import { decodeHistoryCursor } from './pet-history-cursor.js';
import { PetHistoryService } from './pet-history.service.js';
import { CursorSigner } from '../common/dto/page-cursor.js';

const admin: Principal = { kind: 'user', userId: 1, role: 'admin' };
const user: Principal = { kind: 'user', userId: 2, role: 'user' };

function petEvent(sequence: number, fields: Partial<PetEvent> = {}): PetEvent {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString();
  return {
    sequence,
    id: `evt_${String(sequence).padStart(32, '0')}`,
    type: 'pet.updated',
    subject: petSubject(4),
    petId: 4,
    occurredAt: at,
    actorUserId: 2,
    actorApiKeyPrefix: null,
    changedFields: ['name'],
    statusFrom: null,
    statusTo: null,
    adoptionId: null,
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
  };
}

function fakeRepository() {
  return {
    findHistoryPage: jest.fn<PetEventsRepository['findHistoryPage']>(),
    countPerDay: jest.fn<PetEventsRepository['countPerDay']>(),
  } satisfies Record<keyof PetEventsRepository, unknown>;
}

const signer = new CursorSigner('a test secret for page cursors');

describe(PetHistoryService.name, () => {
  let repository: ReturnType<typeof fakeRepository>;
  let sut: PetHistoryService;

  beforeEach(() => {
    repository = fakeRepository();
    sut = new PetHistoryService(repository as unknown as PetEventsRepository, signer);
  });

  describe('list', () => {
    it('should give a cursor below the page’s last event, for this pet', async () => {
      repository.findHistoryPage.mockResolvedValue({
        events: [petEvent(9), petEvent(7)],
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
      expect(decodeHistoryCursor(signer, page.pagination.nextCursor!, { petId: 4 })).toEqual({
        petId: 4,
        sequence: 7,
        offset: 2,
      });
    });

    it('should read below the cursor’s event, from its offset', async () => {
      repository.findHistoryPage.mockResolvedValue({
        events: [petEvent(9), petEvent(7)],
        total: 3,
        petExists: true,
      });
      const first = await sut.list(4, { limit: 2 }, user);
      repository.findHistoryPage.mockResolvedValue({
        events: [petEvent(5)],
        total: 3,
        petExists: true,
      });

      const second = await sut.list(4, { limit: 2, cursor: first.pagination.nextCursor }, user);

      expect(repository.findHistoryPage).toHaveBeenLastCalledWith(4, {
        limit: 2,
        offset: 2,
        beforeSequence: 7,
      });
      expect(second.pagination).toMatchObject({ offset: 2, total: 3, hasMore: false });
      expect(second.pagination.nextCursor).toBeUndefined();
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
      const events = [petEvent(3, { type: 'pet.deleted', changedFields: null })];
      repository.findHistoryPage.mockResolvedValue({ events, total: 1, petExists: false });

      expect((await sut.list(4, { limit: 20 }, admin)).events).toBe(events);
    });
  });
});
