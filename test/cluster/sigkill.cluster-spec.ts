import { expect, it, jest } from '@jest/globals';
import {
  EXPECTED_TAGS,
  loadPets,
  moreRequests,
  runLoad,
  stopSignal,
  useCluster,
  withServers,
  type LoadResult,
} from './cluster-harness.js';

jest.setTimeout(240_000);

// What a client may see when an instance dies under it: nginx answers 502 for a POST it had
// already sent there (never sent twice: it may have been applied), and 504 only past its
// 35 s read timeout. GET and PUT are retried on another instance. The cluster's readiness
// watcher takes the dead instance out a few polls later; until then nginx routes around it
// by itself, from the refused connections.
const CLEAN_FAILURES = [502, 503, 504];

withServers('An instance killed with SIGKILL mid-load (cluster)', () => {
  const cluster = useCluster();

  it('should route around it, fail only what was in flight there, and half-write nothing', async () => {
    const t = cluster();
    const categoryId = await t.category();
    const result: LoadResult = { requests: [], created: [] };
    const { stopped, stop } = stopSignal();
    const load = runLoad(t, categoryId, stopped, result);
    let killedAt = 0;
    try {
      await moreRequests(result, 60);
      const exit = await t.cluster.killInstance(1);
      killedAt = performance.now();
      expect(exit.signal).toBe('SIGKILL');
      await moreRequests(result, 120);
    } finally {
      stop();
    }
    await load;

    const failed = result.requests.filter((r) => r.status < 200 || r.status >= 300);
    expect(failed.filter((r) => !CLEAN_FAILURES.includes(r.status))).toEqual([]);
    // Only requests in flight when it died (at most one per client loop) may fail, and only
    // non-idempotent ones; whatever started after its death was served by the other two.
    expect(failed.length).toBeLessThanOrEqual(6);
    expect(failed.filter((r) => !['create', 'upload'].includes(r.op))).toEqual([]);
    const after = result.requests.filter((r) => r.startedAt > killedAt);
    expect(after.length).toBeGreaterThanOrEqual(100);
    expect(after.filter((r) => r.status < 200 || r.status >= 300)).toEqual([]);
    // Some of those came before the watcher's change: nginx alone kept them whole.
    const takenOut = t.nginxChanges.find((change) =>
      /^instance 1 .* not ready: taken out of nginx$/.test(change.line),
    );
    expect(takenOut).toBeDefined();
    expect(after.filter((r) => r.startedAt < takenOut!.at).length).toBeGreaterThan(0);

    // Every pet row is whole (its three tags), including those whose create got a 502.
    const pets = await loadPets(t.db);
    expect(pets.filter((pet) => pet.tags !== EXPECTED_TAGS)).toEqual([]);
    const ids = new Set(pets.map((pet) => pet.id));
    expect(result.created.filter((c) => !ids.has(c.id))).toEqual([]);
  });
});
