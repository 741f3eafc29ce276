import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * What the service reads and throws away of a body that keeps arriving after its answer
 * (an upload refused for its size, say): at most this many bytes, with no pause longer than
 * `idleMs`, for at most `totalMs`; past any of them the connection is closed.
 */
export const DISCARD_LIMITS = { maxBytes: 32 * 1024 * 1024, idleMs: 2_000, totalMs: 10_000 };

// Requests whose client waits for 100 Continue, and has not been sent it.
const awaitingContinue = new WeakSet<IncomingMessage>();

/**
 * Makes an answer given before the request's body has arrived reach the client:
 * - `Expect: 100-continue` is answered 100 Continue only when something starts reading the
 *   body, so a request refused before that (413 for its announced size, 401, 404, ...) is
 *   answered before the client sends its body;
 * - a body that keeps arriving after the answer is read and discarded, within
 *   DISCARD_LIMITS, before the connection closes: a client that writes its whole body
 *   before reading (Node's) would otherwise meet a reset and lose the answer.
 */
export function deliverEarlyAnswers(server: Server, limits = DISCARD_LIMITS): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(req);
    // Every reader of a body (a pipe, a 'data' listener, body-parser's and multer's drains)
    // resumes the stream; once the answer has started, only Node's own drain and
    // discardTheRest() do, and no 100 Continue may follow a final answer.
    req.once('resume', () => {
      if (res.headersSent) return;
      awaitingContinue.delete(req);
      res.writeContinue();
    });
    server.emit('request', req, res);
  });
  // Before Express's listener, so that an answer it sends at once is seen too.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    res.once('prefinish', () => {
      if (!req.complete) discardTheRest(req, limits);
    });
  });
}

function discardTheRest(req: IncomingMessage, limits: typeof DISCARD_LIMITS): void {
  // A client waiting for 100 Continue sends nothing more: closing at once, as Node does, is right.
  if (awaitingContinue.has(req) && req.readableLength === 0) return;
  // A body announced beyond the bound would be cut anyway: none of it is worth reading.
  if (Number(req.headers['content-length']) > limits.maxBytes) return;

  const socket = req.socket;
  const cut = () => socket.destroy();
  const total = setTimeout(cut, limits.totalMs).unref();
  const idle = setTimeout(cut, limits.idleMs).unref();
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) cut();
    else idle.refresh();
  });
  // Node closes a connection whose answer says so (`Connection: close`, or a final answer
  // to an `Expect: 100-continue`) as soon as the answer is sent, through destroySoon(): the
  // close waits for the end of the body instead.
  let closeWanted = false;
  socket.destroySoon = () => {
    closeWanted = true;
  };
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(total);
    clearTimeout(idle);
    delete (socket as Partial<typeof socket>).destroySoon;
    if (closeWanted) socket.destroySoon();
  };
  req.once('end', finish);
  req.once('close', finish);
  req.resume();
}
