import { expect, it, jest } from '@jest/globals';
import { API_KEY_HEADER, RATE_LIMIT_RESET_HEADER } from '../../src/common/http/header-names.js';
import { waitFor } from '../support/wait.js';
import { send, useCluster, withServers } from './cluster-harness.js';

jest.setTimeout(240_000);

const PER_MINUTE = 12;

withServers('Rate limits across the cluster (cluster)', () => {
  const cluster = useCluster({ RATE_LIMIT_API_KEY_PER_MINUTE: String(PER_MINUTE) });

  it("should share one key's budget exactly across the three instances", async () => {
    const t = cluster();
    const created = await t.json('POST', '/v1/api-keys', { name: 'shared', mode: 'live' });
    expect(created.status).toBe(201);
    const key = { [API_KEY_HEADER]: created.body.key as string };
    const [first, second, third] = t.cluster.instances;

    // One request spent, and the minute it counts in: a burst must not straddle two windows.
    const probe = await send(`${first.url}/v1/categories`, { headers: key });
    expect(probe.status).toBe(200);
    const resetAt = Number(probe.headers.get(RATE_LIMIT_RESET_HEADER)) * 1000;
    let spent = 1;
    if (resetAt - Date.now() < 20_000) {
      await waitFor(() => Promise.resolve(Date.now() > resetAt + 100), 25_000);
      spent = 0;
    }

    // Three at a time, one to each instance, until twice the budget was asked for.
    const statuses: number[] = [];
    for (let round = 0; round < (2 * PER_MINUTE) / 3; round += 1) {
      const answers = await Promise.all(
        [first, second, third].map((instance) =>
          send(`${instance.url}/v1/categories`, { headers: key }),
        ),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(PER_MINUTE - spent);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    // Once spent, spent for everyone: nginx's answer too.
    expect((await send(`${t.cluster.url}/v1/categories`, { headers: key })).status).toBe(429);
  });
});
