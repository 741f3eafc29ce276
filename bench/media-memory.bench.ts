import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { adminClient, startBenchApp } from './bench-app.js';
import { freshDatabase } from './load.js';
import { twelveMegapixelJpeg } from './media.bench.js';
import { peakRssDuring, rssMb } from './rss.js';

/**
 * `npm run bench -- media-memory`: peak resident memory of the app under one 39 MP JPEG
 * with EXIF orientation 6, then 20 concurrent uploads of a 5 MB JPEG, once without a
 * bound on buffered upload bytes (as before MEDIA_MAX_BUFFERED_BYTES) and once with the
 * default bound. The server runs alone in a fresh process per run (the client's own images
 * and buffers stay out of its figures), on the machine's PostgreSQL (BENCH_DATABASE_URL), its
 * RSS sampled from /proc every 5 ms.
 */
const CONCURRENT = 20;
const UNBOUNDED = String(4 * 1024 ** 3);
// PostgreSQL in a process of its own: the embedded one would add hundreds of MB to the app's.
const DATABASE = 'petstore_bench_memory';

interface Measurement {
  idleMb: number;
  concurrentPeakMb: number;
  statuses: Record<string, number>;
  bigPeakMb: number;
  bigStatus: string;
}

/** 7200×5400 (38.9 MP), stored sideways with orientation 6, as a phone writes a portrait photo. */
function orientedBigJpeg(): Promise<Buffer> {
  return sharp({
    create: {
      width: 7200,
      height: 5400,
      channels: 3,
      background: { r: 90, g: 120, b: 160 },
      noise: { type: 'gaussian', mean: 128, sigma: 8 },
    },
  })
    .jpeg({ quality: 40 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

/** The app alone in this process; it tells the parent its address on standard output. */
async function serve(): Promise<void> {
  const { base, dataDir } = await startBenchApp(100_000);
  // The parent ends this process with a signal, which the shutdown hooks answer.
  process.once('beforeExit', () => void rm(dataDir, { recursive: true, force: true }));
  console.log(JSON.stringify({ base }));
}

async function measure(
  budget: string | undefined,
  fiveMb: Buffer,
  big: Buffer,
): Promise<Measurement> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BENCH_MEMORY_SERVER: '1',
    DATABASE_URL: await freshDatabase(DATABASE),
  };
  if (budget) env.MEDIA_MAX_BUFFERED_BYTES = budget;
  else delete env.MEDIA_MAX_BUFFERED_BYTES;
  const server = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stopped = new Promise((resolve) => server.once('exit', resolve));
  try {
    const { base } = await new Promise<{ base: string }>((resolve, reject) => {
      server.once('exit', (code) => reject(new Error(`server exited ${code}`)));
      server.stdout.once('data', (chunk: Buffer) =>
        resolve(JSON.parse(chunk.toString()) as { base: string }),
      );
    });
    const { auth, post } = await adminClient(base);
    const category = await post('/categories', { name: 'Memory' });
    const pets = await Promise.all(
      Array.from({ length: CONCURRENT + 1 }, () =>
        post('/pets', { name: 'Bench', categoryId: category.id, status: 'available' }),
      ),
    );
    const upload = async (petId: number, image: Buffer) => {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'b.jpg');
      try {
        const res = await fetch(`${base}/pets/${petId}/upload-image`, {
          method: 'POST',
          headers: auth,
          body: form,
        });
        await res.arrayBuffer();
        return String(res.status);
      } catch {
        // A refusal before the body is read closes the connection (Connection: close), and
        // fetch then fails with EPIPE instead of returning the 503 it was sent.
        return 'closed';
      }
    };
    const pid = server.pid!;
    const idleMb = await rssMb(pid);
    // The single big image first: RSS rarely shrinks, so the burst would mask it.
    let bigStatus = '';
    const bigPeakMb = await peakRssDuring(pid, async () => {
      bigStatus = await upload(pets[CONCURRENT].id, big);
    });
    const statuses: Record<string, number> = {};
    const concurrentPeakMb = await peakRssDuring(pid, async () => {
      const results = await Promise.all(
        pets.slice(0, CONCURRENT).map((pet) => upload(pet.id, fiveMb)),
      );
      for (const status of results) statuses[status] = (statuses[status] ?? 0) + 1;
    });
    return { idleMb, concurrentPeakMb, statuses, bigPeakMb, bigStatus };
  } finally {
    server.kill('SIGTERM');
    await stopped;
  }
}

export async function run(): Promise<void> {
  // Made here, in the client, before any server starts.
  const fiveMb = await twelveMegapixelJpeg();
  const big = await orientedBigJpeg();
  const runs = {
    'unbounded buffering (before)': await measure(UNBOUNDED, fiveMb, big),
    'MEDIA_MAX_BUFFERED_BYTES default (after)': await measure(undefined, fiveMb, big),
  };
  console.log(
    `media-memory: one 39 MP JPEG (orientation 6), then ${CONCURRENT} concurrent 5 MB JPEG uploads`,
  );
  console.table(
    Object.fromEntries(
      Object.entries(runs).map(([name, m]) => [
        name,
        {
          'idle RSS MB': m.idleMb,
          'peak RSS, 20 uploads MB': m.concurrentPeakMb,
          'answers to the 20': Object.entries(m.statuses)
            .map(([status, count]) => `${count}×${status}`)
            .join(' '),
          'peak RSS, 39 MP MB': m.bigPeakMb,
          '39 MP answer': m.bigStatus,
        },
      ]),
    ),
  );
}

if (process.env.BENCH_MEMORY_SERVER === '1') await serve();
