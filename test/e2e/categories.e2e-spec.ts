import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe('Categories (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('should create a category and return it with a numeric id', async () => {
    const res = await t.http
      .post('/v1/categories')
      .set(t.admin)
      .send({ name: 'Dogs', description: 'Woof' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), name: 'Dogs', description: 'Woof' });
  });
});
