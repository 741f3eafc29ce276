import { describe, expect, it, jest } from '@jest/globals';
import {
  EXPECTED_TAGS,
  loadPets,
  moreRequests,
  runLoad,
  stopSignal,
  useCluster,
  withServers,
  type LoadResult,
  type TestCluster,
} from './cluster-harness.js';

jest.setTimeout(300_000);

/**
 * Each instance in turn gets SIGTERM and is started again, under load: every request
 * answered 2xx, every acknowledged write kept.
 */
async function restartEachUnderLoad(t: TestCluster): Promise<void> {
  const categoryId = await t.category();
  const result: LoadResult = { requests: [], created: [] };
  const { stopped, stop } = stopSignal();
  const load = runLoad(t, categoryId, stopped, result);
  const exits = [];
  try {
    for (const instance of t.cluster.instances) {
      // Requests in flight at every step: SIGTERM, not ready but still serving with
      // Connection: close, listener and idle connections closed, exit; started again.
      await moreRequests(result, 30);
      exits.push(await t.cluster.restartInstance(instance.index));
    }
    await moreRequests(result, 30);
  } finally {
    stop();
  }
  await load;

  expect(exits).toEqual([0, 1, 2].map(() => ({ code: 0, signal: null })));
  const ops = new Set(result.requests.map((r) => r.op));
  expect([...ops].sort()).toEqual(['create', 'get', 'list', 'update', 'upload']);
  expect(result.requests.filter((r) => r.status < 200 || r.status >= 300)).toEqual([]);

  // Every acknowledged create is in the database with its tags, and a key sent twice
  // (a client's retry) made one pet, answered with the same id both times.
  const pets = await loadPets(t.db);
  const byId = new Map(pets.map((pet) => [pet.id, pet]));
  expect(result.created.filter((c) => byId.get(c.id)?.name !== c.name)).toEqual([]);
  const idsPerKey = new Map<string, Set<number>>();
  for (const { key, id } of result.created) {
    idsPerKey.set(key, (idsPerKey.get(key) ?? new Set()).add(id));
  }
  expect([...idsPerKey.values()].filter((ids) => ids.size !== 1)).toEqual([]);
  expect(result.created.length).toBeGreaterThan(idsPerKey.size);
  expect(pets).toHaveLength(idsPerKey.size);
  expect(pets.filter((pet) => pet.tags !== EXPECTED_TAGS)).toEqual([]);
}

withServers('A rolling restart by plain SIGTERM under load (cluster)', () => {
  describe("with nginx following the instances' readiness, as Kubernetes does", () => {
    const cluster = useCluster();

    it('should fail no request and lose no acknowledged write while each instance restarts in turn', async () => {
      await restartEachUnderLoad(cluster());
    });
  });

  describe('with nginx told nothing, as under compose, systemd or a kill', () => {
    const cluster = useCluster({}, { followReadiness: false });

    it('should fail no request and lose no acknowledged write while each instance restarts in turn', async () => {
      const t = cluster();
      await restartEachUnderLoad(t);
      // The drain alone did it: nothing took an instance out of nginx.
      expect(t.nginxChanges.filter(({ line }) => line.includes('nginx'))).toEqual([]);
    });
  });
});
