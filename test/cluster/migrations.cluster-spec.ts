import { expect, it, jest } from '@jest/globals';
import { useCluster, withServers } from './cluster-harness.js';

jest.setTimeout(240_000);

withServers('A cluster started on an empty database (cluster)', () => {
  // startCluster() starts the three instances at the same instant, each migrating first.
  const cluster = useCluster();

  it('should apply each migration once, by one of the three', async () => {
    const t = cluster();
    const { rows } = await t.db.query<{ name: string; runs: number }>(
      'SELECT name, count(*)::int AS runs FROM migrations GROUP BY name',
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((row) => row.runs !== 1)).toEqual([]);
    const steps = t.cluster.instances.map((instance) => instance.migrations.join('\n'));
    expect(steps.filter((out) => out.includes('Applied migrations'))).toHaveLength(1);
    expect(steps.filter((out) => out.includes('No pending migrations'))).toHaveLength(2);
  });

  it('should serve from all three, through nginx and directly', async () => {
    const t = cluster();
    const category = await t.category();
    for (const instance of t.cluster.instances) {
      expect((await t.request('/health/ready', {}, instance.url)).status).toBe(200);
      const read = await t.request(`/v1/categories/${category}`, {}, instance.url);
      expect(read.status).toBe(200);
    }
    expect((await t.request(`/v1/categories/${category}`)).status).toBe(200);
  });
});
