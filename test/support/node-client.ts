import http from 'node:http';
import net from 'node:net';

/** What Node's client met in a request: the answer, if it read one, and every error. */
export interface NodeAnswer {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  body?: Record<string, unknown>;
  /** Whether 100 Continue came. */
  continued: boolean;
  errors: string[];
}

export interface NodePostOptions {
  /** Sends `Expect: 100-continue`. */
  expect?: boolean;
  /** Sends the body only once 100 Continue came (with `expect`), never if it does not. */
  wait?: boolean;
  /** Sends the body chunked, without Content-Length. */
  chunked?: boolean;
  /** Announces this Content-Length instead of the body's: a client that sends less, then waits. */
  contentLength?: number;
  /** Ends the request when aborted, answered or not. */
  signal?: AbortSignal;
}

/**
 * A POST by Node's own client, which writes its whole body before it reads. Settles when
 * the request is over (its socket closed), with every error it met on the way.
 */
export function nodePost(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  { expect = false, wait = false, chunked = false, contentLength, signal }: NodePostOptions = {},
): Promise<NodeAnswer> {
  return new Promise((resolve) => {
    const answer: NodeAnswer = { continued: false, errors: [] };
    const request = http.request({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path,
      agent: false,
      signal,
      headers: {
        ...headers,
        ...(chunked ? {} : { 'Content-Length': String(contentLength ?? body.length) }),
        ...(expect ? { Expect: '100-continue' } : {}),
      },
    });
    request.on('continue', () => {
      answer.continued = true;
      if (wait) request.end(body);
    });
    request.on('response', (response) => {
      answer.status = response.statusCode;
      answer.headers = response.headers;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        answer.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        // A client that never sent its body is done with the request once answered.
        if (wait && !answer.continued) request.destroy();
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => answer.errors.push(error.code ?? ''));
    request.on('close', () => resolve(answer));
    if (!wait) request.end(body);
  });
}

/** Sends a request's head alone on a raw socket and returns all the service wrote until it closed. */
export async function headOnly(port: number, lines: string[]): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write([...lines, `Host: 127.0.0.1:${port}`, '', ''].join('\r\n'));
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  await new Promise((resolve) => socket.once('close', resolve));
  return Buffer.concat(received).toString('utf8');
}

/** The JSON body of a raw HTTP answer. */
export const bodyOf = (text: string): unknown =>
  JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
