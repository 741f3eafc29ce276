import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  env: Record<string, string>;
  /** An S3 client of the test's own, to look at the bucket behind the app's back. */
  client(): S3Client;
  stop(): Promise<void>;
}

// s3rver accepts exactly these credentials.
const ACCESS_KEY = 'S3RVER';

/** A real S3-compatible server (s3rver) on a free loopback port, with one empty bucket. */
export async function startS3Server(bucket = 'pet-media'): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 'petstore-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped = false;
  return {
    endpoint,
    bucket,
    env: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: ACCESS_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    },
    client: () =>
      new S3Client({
        region: 'us-east-1',
        endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: ACCESS_KEY },
      }),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
