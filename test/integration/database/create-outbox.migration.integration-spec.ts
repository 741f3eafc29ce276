import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CreateOutbox1795700000000 } from '../../../src/database/migrations/1795700000000-CreateOutbox.js';
import { NO_ACTOR } from '../../../src/pets/pet-actor.js';
import type { PetEvent } from '../../../src/pets/pet-events.js';
import { petEventData } from '../../../src/pets/pet.mapper.js';
import { PetsRepository } from '../../../src/pets/pets.repository.js';
import { PreparedStatements } from '../../../src/database/prepared-statements.js';
import { WEBHOOK_FAN_OUT } from '../../../src/webhooks/delivery/webhook-fan-out.js';
import {
  createRepositoryHarness,
  type RepositoryHarness,
} from '../../support/repository-harness.js';

/*
 * The migration that made the outbox moves the pet events not yet fanned out to webhooks
 * into it (docs/events.md, "The outbox"): none is lost, and each arrives in the shape the
 * fan-out reads. Run backwards to the table as it was, then forwards again.
 */
describe(CreateOutbox1795700000000.name, () => {
  let harness: RepositoryHarness;
  const migration = new CreateOutbox1795700000000();

  const run = (direction: 'up' | 'down') => harness.migrate(migration, direction);

  beforeAll(async () => {
    harness = await createRepositoryHarness([PetsRepository, PreparedStatements]);
  });
  afterAll(() => harness?.close());

  it('should move the unpublished pet events into the outbox as the events their writes publish, and no published one', async () => {
    const [{ id: categoryId }] = await harness.query<{ id: number }>(
      `INSERT INTO categories (name) VALUES ('Migrated') RETURNING id`,
    );
    const pets = harness.get(PetsRepository);
    const write = (name: string) =>
      pets.insert({ name, categoryId, status: 'available', photoUrls: [] }, [], NO_ACTOR);
    const published = await write('Published');
    await run('down');
    const pending = await write('Pending');
    await harness.query(`UPDATE pet_events SET published_at = now() WHERE pet_id = $1`, [
      published.pet.id,
    ]);

    await run('up');

    const messages = await harness.query<{ consumer: string; subject: string; event: PetEvent }>(
      `SELECT consumer, subject, event FROM outbox_messages ORDER BY id`,
    );
    expect(messages.map(({ consumer, subject }) => ({ consumer, subject }))).toEqual([
      { consumer: WEBHOOK_FAN_OUT, subject: `pet:${pending.pet.id}` },
    ]);
    const [moved] = pending.events;
    const { event } = messages[0];
    // This migration predates adoptions and actors' roles: its events name neither (a later
    // write's say null).
    expect({ ...event, occurredAt: new Date(event.occurredAt).toISOString() }).toEqual({
      ...moved,
      adoptionId: undefined,
      actorRole: undefined,
      pet: expect.any(Object),
    });
    // What the fan-out sends: the pet as the API showed it.
    expect(petEventData(event)).toEqual(petEventData(moved));
  });
});
