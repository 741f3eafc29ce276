import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from './free-port.js';

/** A mail the server accepted, parsed, with the envelope it came with. */
export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  parsed: ParsedMail;
}

export interface TestSmtpServerOptions {
  /** Refuses the first `count` messages with `code` (4xx: try later, 5xx: refused). */
  refuseFirst?: { count: number; code: number };
}

/**
 * A real SMTP server on a free loopback port, for the mail tests (docs/mail.md): no TLS, no
 * authentication; it keeps every mail it accepts, parsed, and may refuse the first ones.
 */
export class TestSmtpServer {
  readonly mails: ReceivedMail[] = [];
  /** Messages answered with a refusal. */
  refused = 0;
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, callback) => {
      const envelope = {
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
      };
      simpleParser(stream)
        .then((parsed) => callback(this.receive({ envelope, parsed })))
        .catch((error: Error) => callback(error));
    },
  });

  private constructor(
    readonly port: number,
    private readonly options: TestSmtpServerOptions,
  ) {}

  static async start(options: TestSmtpServerOptions = {}): Promise<TestSmtpServer> {
    const smtp = new TestSmtpServer(await freePort(), options);
    await new Promise<void>((resolve, reject) => {
      smtp.server.once('error', reject);
      smtp.server.listen(smtp.port, '127.0.0.1', () => resolve());
    });
    return smtp;
  }

  /** SMTP_URL for the app. */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The accepted mails sent to `address`. */
  mailsTo(address: string): ReceivedMail[] {
    return this.mails.filter(({ envelope }) => envelope.to.includes(address));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Keeps the mail, or answers the refusal it is due. */
  private receive(mail: ReceivedMail): Error | undefined {
    const { refuseFirst } = this.options;
    if (refuseFirst && this.refused < refuseFirst.count) {
      this.refused += 1;
      return Object.assign(new Error('Refused by the test server'), {
        responseCode: refuseFirst.code,
      });
    }
    this.mails.push(mail);
    return undefined;
  }
}
