import http from 'node:http';
import type { Sample } from './load.js';
import { rssDuring, rssMb } from './rss.js';

/**
 * Issue 44's export rows: `GET /v1/pets/export` of every seeded pet, as NDJSON and as CSV,
 * one client reading as fast as it can. Reported: the bytes and lines received, MB/s, and
 * the app process's resident memory before, at its peak during, and right after the export
 * (bench/rss.ts). Target: at least 50 MB/s, and memory that does not grow with the export
 * (peak within RSS_FLAT_MB of before, for some 400 MB of NDJSON).
 */

const MB = 1024 * 1024;
const TARGET_MB_PER_S = 50;
const RSS_FLAT_MB = 100;

interface ExportRow {
  scenario: string;
  app: Sample;
  target: string;
  met?: boolean;
  note?: string;
}

/** One export read whole: its bytes, lines, and seconds from the request to the last byte. */
function readExport(
  origin: string,
  token: string,
  format: 'ndjson' | 'csv',
): Promise<{ bytes: number; lines: number; seconds: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${origin}/v1/pets/export?format=${format}`,
      { headers: { Authorization: `Bearer ${token}` } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`export ${format}: ${res.statusCode}`));
          res.resume();
          return;
        }
        let bytes = 0;
        let lines = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
        });
        res.on('end', () => {
          if (!res.complete) {
            reject(new Error(`export ${format} cut short after ${bytes} bytes`));
            return;
          }
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          resolve({ bytes, lines, seconds });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** The export rows, NDJSON then CSV, against the app process `pid` at `app`. */
export async function exportScenarios(
  bench: { app: string; pid: number; token: string },
  rows: ExportRow[],
): Promise<void> {
  const total = (
    (await (
      await fetch(`${bench.app}/v1/pets?limit=1`, {
        headers: { Authorization: `Bearer ${bench.token}` },
      })
    ).json()) as { pagination: { total: number } }
  ).pagination.total;
  for (const format of ['ndjson', 'csv'] as const) {
    console.log(`bench: E. export of ${total.toLocaleString('en')} pets as ${format}`);
    const before = await rssMb(bench.pid);
    let read: Awaited<ReturnType<typeof readExport>> | undefined;
    const samples = await rssDuring(
      bench.pid,
      async () => {
        read = await readExport(bench.app, bench.token, format);
      },
      50,
    );
    const after = await rssMb(bench.pid);
    const { bytes, lines, seconds } = read!;
    const peak = Math.max(...samples);
    const mbPerSecond = bytes / MB / seconds;
    // NDJSON: a line per pet; CSV: a header, and a row per pet (a field with a line break
    // adds lines, which the seed's pets have none of).
    const expectedLines = format === 'ndjson' ? total : total + 1;
    rows.push({
      scenario: `E. GET /pets/export?format=${format} (${total.toLocaleString('en')} pets)`,
      app: { rps: 1 / seconds, p50: Math.round(seconds * 1000), p99: 0, bad: 0, bytes },
      target: `≥ ${TARGET_MB_PER_S} MB/s; RSS peak ≤ before + ${RSS_FLAT_MB} MB`,
      met:
        mbPerSecond >= TARGET_MB_PER_S && peak <= before + RSS_FLAT_MB && lines === expectedLines,
      note:
        `${(bytes / MB).toFixed(0)} MB in ${seconds.toFixed(1)} s = ${mbPerSecond.toFixed(1)} MB/s; ` +
        `${lines.toLocaleString('en')} lines (expected ${expectedLines.toLocaleString('en')}); ` +
        `RSS before/peak/after ${before}/${peak}/${after} MB`,
    });
  }
}
