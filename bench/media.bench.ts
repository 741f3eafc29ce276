import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { adminClient, startBenchApp } from './bench-app.js';

const RUNS = 7;
const READ_SECONDS = 5;
const MAX_BYTES = 5 * 1024 * 1024;
// Room for the multipart envelope, so the whole request stays under the 5 MB file limit.
const TARGET_BYTES = MAX_BYTES - 4 * 1024;

/** A 4000×3000 (12 MP) photo-like JPEG at the highest quality that stays under 5 MB. */
export async function twelveMegapixelJpeg(): Promise<Buffer> {
  const noisy = sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: { r: 110, g: 130, b: 150 },
      noise: { type: 'gaussian', mean: 128, sigma: 24 },
    },
  });
  const raw = await noisy.raw().toBuffer();
  const encode = (quality: number) =>
    sharp(raw, { raw: { width: 4000, height: 3000, channels: 3 } })
      .jpeg({ quality })
      .toBuffer();
  let best: Buffer | undefined;
  let [low, high] = [1, 100];
  while (low <= high) {
    const quality = Math.floor((low + high) / 2);
    const jpeg = await encode(quality);
    if (jpeg.length <= TARGET_BYTES) {
      best = jpeg;
      low = quality + 1;
    } else {
      high = quality - 1;
    }
  }
  if (!best) throw new Error('Could not make a JPEG under 5 MB');
  return best;
}

/** What the service does to a JPEG, written with sharp directly. */
async function bareSharp(input: Buffer): Promise<void> {
  const options = { failOn: 'error' as const, limitInputPixels: 40_000_000 };
  const main = await sharp(input, { ...options, autoOrient: true })
    .resize({ width: 1024, height: 1024, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 85 })
    .toBuffer();
  await sharp(main, options)
    .resize({ width: 256, height: 256, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export async function run(): Promise<void> {
  const app = await startBenchApp(100_000_000);
  try {
    const { auth, post } = await adminClient(app.base);
    const { base } = app;
    const jpeg = await twelveMegapixelJpeg();
    const category = await post('/categories', { name: 'Bench' });
    // A fresh pet per upload: a pet holds at most 20 photos.
    const newPet = () =>
      post('/pets', { name: 'Bench', categoryId: category.id, status: 'available' });
    const upload = async () => {
      const pet = await newPet();
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'bench.jpg');
      const response = await fetch(`${base}/pets/${pet.id}/upload-image`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
      if (response.status !== 201) throw new Error(`${response.status} ${await response.text()}`);
    };

    // One warm-up each, then alternate so that drift affects both sides alike.
    await upload();
    await bareSharp(jpeg);
    const http: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      http.push(await timed(upload));
      direct.push(await timed(() => bareSharp(jpeg)));
    }

    const httpMedian = median(http);
    const sharpMedian = median(direct);
    console.log(
      `media: 4000x3000 JPEG of ${(jpeg.length / 1024 / 1024).toFixed(2)} MB, median of ${RUNS} runs`,
    );
    console.table({
      'POST /v1/pets/{id}/upload-image': { 'median ms': Math.round(httpMedian) },
      'bare sharp (same resize)': { 'median ms': Math.round(sharpMedian) },
    });
    console.log(
      `ratio HTTP / sharp: ${(httpMedian / sharpMedian).toFixed(2)}x ` +
        `(overhead ${Math.round(httpMedian - sharpMedian)} ms: multipart, sniffing, storage, database)`,
    );

    // Four uploads at once: each should finish within 2.5x bare sharp's time for one.
    const together = await Promise.all(Array.from({ length: 4 }, () => timed(upload)));
    const slowest = Math.max(...together);
    console.log(
      `4 concurrent uploads: slowest ${Math.round(slowest)} ms = ` +
        `${(slowest / sharpMedian).toFixed(2)}x bare sharp (target ≤ 2.5x)`,
    );

    // Reads keep their rate while 2 uploads a second run beside them.
    const reads = () =>
      autocannon({
        url: `${base}/pets?limit=20`,
        headers: auth,
        connections: 8,
        duration: READ_SECONDS,
      });
    const alone = await reads();
    const uploads: Promise<unknown>[] = [];
    const ticker = setInterval(() => uploads.push(upload()), 500);
    const beside = await reads();
    clearInterval(ticker);
    await Promise.all(uploads);
    const kept = beside.requests.average / alone.requests.average;
    console.log(
      `reads: ${Math.round(alone.requests.average)} req/s alone, ` +
        `${Math.round(beside.requests.average)} req/s with 2 uploads/s = ` +
        `${(kept * 100).toFixed(0)}% kept (target ≥ 60%), ` +
        `${alone.non2xx + beside.non2xx} non-2xx`,
    );
  } finally {
    await app.close();
  }
}
