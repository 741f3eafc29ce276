import { readFile } from 'node:fs/promises';

/** Resident memory of a server process, for the memory benchmarks (Linux: reads /proc). */

const MB = 1024 * 1024;

/** Process `pid` and its descendants, if it has any. */
async function processTree(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  const nested = await Promise.all(
    children.split(' ').filter(Boolean).map(Number).map(processTree),
  );
  return [pid, ...nested.flat()];
}

/** VmRSS of `pid` and its descendants now, in MB. */
export async function rssMb(pid: number): Promise<number> {
  const sizes = await Promise.all(
    (await processTree(pid)).map(async (each) => {
      const status = await readFile(`/proc/${each}/status`, 'utf8').catch(() => '');
      return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
    }),
  );
  return Math.round(sizes.reduce((sum, size) => sum + size, 0) / MB);
}

/** Samples `pid`'s RSS every `everyMs` while `work` runs; the samples in MB, in order. */
export async function rssDuring(
  pid: number,
  work: () => Promise<void>,
  everyMs = 5,
): Promise<number[]> {
  const samples = [await rssMb(pid)];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push(await rssMb(pid));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  try {
    await work();
  } finally {
    sampling = false;
    await sampler;
  }
  return samples;
}

/** The highest of `rssDuring`'s samples, in MB. */
export async function peakRssDuring(pid: number, work: () => Promise<void>): Promise<number> {
  return Math.max(...(await rssDuring(pid, work)));
}
