import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createPet } from '../../support/pets.js';
import { createTestApp, type TestApp } from '../../support/test-app.js';

const IDLE_TIMEOUT_MS = 1_000;

// The embedded database's session outlives the pool's connections to it.
const embeddedOnly = process.env.DATABASE_URL ? describe.skip : describe;

embeddedOnly('The embedded database (e2e, PGlite)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      DATABASE_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      // No worker poll in between: the pool's connection is left idle.
      OUTBOX_POLL_INTERVAL_MS: '60000',
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('should keep answering after the pool closes its idle connection and opens another', async () => {
    const server = t.app.getHttpServer();
    const id = await createPet(t);
    // The read runs as a named statement, prepared in the embedded database's one session.
    await request(server).get(`/v1/pets/${id}`).set(t.admin).expect(200);

    await new Promise((resolve) => setTimeout(resolve, IDLE_TIMEOUT_MS * 2));

    const again = await request(server).get(`/v1/pets/${id}`).set(t.admin);
    expect(again.status).toBe(200);
  });
});
