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
import { waitFor } from '../support/wait.js';

jest.setTimeout(240_000);

// What a client may see when an instance dies under it: nginx answers 502 for a POST it had
// already sent there (never sent twice: it may have been applied), and 504 only past its
// 35 s read timeout. GET and PUT are retried on another instance. The cluster's readiness
// watcher takes the dead instance out a few polls later; until then nginx routes around it
// by itself, from the refused connections.
const CLEAN_FAILURES = [502, 503, 504];
// A create sent again after its 502 (the load's client retry) finds its Idempotency-Key held
// by the dead instance's claim until the claim lapses: 409, "retry shortly", from a live one.
const keyStillClaimed = (r: { status: number; detail?: string }) =>
  r.status === 409 && (r.detail ?? '').includes('IDEMPOTENCY_KEY_IN_PROGRESS');
// A failed answer, other than a retried create's 409 (a live instance answering as it should).
const isFailure = (r: { status: number; detail?: string }) =>
  (r.status < 200 || r.status >= 300) && !keyStillClaimed(r);
const isTakenOut = (change: { line: string }) =>
  /^instance 1 .* not ready: taken out of nginx$/.test(change.line);

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
      // Under load the watcher's polls may come after those requests: the load goes on until
      // it has taken the dead instance out.
      await waitFor(() => Promise.resolve(t.nginxChanges.some(isTakenOut)), 30_000);
    } finally {
      stop();
    }
    await load;

    const failed = result.requests.filter(isFailure);
    const claimed = result.requests.filter(keyStillClaimed);
    expect(claimed.length).toBeLessThanOrEqual(failed.filter((r) => r.op === 'create').length);
    expect(failed.filter((r) => !CLEAN_FAILURES.includes(r.status))).toEqual([]);
    // Only requests in flight when it died (at most one per client loop) may fail, and only
    // non-idempotent ones; whatever started after its death was served by the other two.
    expect(failed.length).toBeLessThanOrEqual(6);
    expect(failed.filter((r) => !['create', 'upload'].includes(r.op))).toEqual([]);
    const after = result.requests.filter((r) => r.startedAt > killedAt);
    expect(after.length).toBeGreaterThanOrEqual(100);
    expect(after.filter(isFailure)).toEqual([]);
    // Some of those came before the watcher's change: nginx alone kept them whole.
    const takenOut = t.nginxChanges.find(isTakenOut);
    expect(takenOut).toBeDefined();
    expect(after.filter((r) => r.startedAt < takenOut!.at).length).toBeGreaterThan(0);

    // Every pet row is whole (its three tags), including those whose create got a 502.
    const pets = await loadPets(t.db);
    expect(pets.filter((pet) => pet.tags !== EXPECTED_TAGS)).toEqual([]);
    const ids = new Set(pets.map((pet) => pet.id));
    expect(result.created.filter((c) => !ids.has(c.id))).toEqual([]);
  });
});
