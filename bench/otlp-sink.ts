import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OTLP/HTTP endpoint on loopback that accepts every export and keeps nothing but counts:
 * what a collector costs the service to talk to, without a collector.
 */
export class OtlpSink {
  /** Export requests received, by path (`/v1/traces`), with their content type. */
  readonly requests: { path: string; contentType: string; bytes: number }[] = [];

  private constructor(private readonly server: Server) {}

  static async start(port = 0): Promise<OtlpSink> {
    const server = createServer();
    const sink = new OtlpSink(server);
    server.on('request', (req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        sink.requests.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'] ?? '',
          bytes,
        });
        // An empty ExportTraceServiceResponse: everything accepted.
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return sink;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
