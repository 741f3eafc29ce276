import { describe, expect, it, jest } from '@jest/globals';
import { MailRecipientsService } from './mail-recipients.service.js';
import { mailJob } from './mail-queue.js';
import { MailSender } from './mail-sender.js';
import type { MailService } from './mail.service.js';
import type { Mail } from './mail.js';

const rendered = (template: string): Mail => ({
  template,
  subject: 'S',
  text: 'Hello,\n',
  html: '<p>Hello,</p>',
  links: [],
});

function setUp(refusedFor: string[] = []) {
  const mail = {
    deliverOnce: jest.fn((_id: number, to: string, _mail: Mail) =>
      refusedFor.includes(to) ? Promise.reject(new Error('451 try later')) : Promise.resolve(),
    ),
  };
  const recipients = new MailRecipientsService();
  const addressesOf = jest.fn((userIds: number[]) =>
    Promise.resolve(
      new Map(userIds.filter((id) => id !== 404).map((id) => [id, `u${id}@example.com`])),
    ),
  );
  recipients.register(addressesOf);
  return { sut: new MailSender(mail as unknown as MailService, recipients), mail, addressesOf };
}

describe(MailSender.name, () => {
  it('should send each mail as rendered, to its address, once per job', async () => {
    const { sut, mail } = setUp();

    await sut.send(
      [
        mailJob('user:1', 'a@example.com', rendered('one')),
        mailJob('user:2', 'b@example.com', rendered('two')),
      ],
      [11, 12],
    );

    expect(mail.deliverOnce.mock.calls).toEqual([
      [11, 'a@example.com', rendered('one')],
      [12, 'b@example.com', rendered('two')],
    ]);
  });

  it('should try every mail of the batch, then throw naming those not sent', async () => {
    const { sut, mail } = setUp(['a@example.com']);

    await expect(
      sut.send(
        [
          mailJob('user:1', 'a@example.com', rendered('one')),
          mailJob('user:2', 'b@example.com', rendered('two')),
        ],
        [1, 2],
      ),
    ).rejects.toThrow('1 mail(s) not sent: user:1 (one): 451 try later');
    expect(mail.deliverOnce).toHaveBeenCalledTimes(2);
  });

  it('should send a mail queued to an account to its address as read when it leaves, in one read for the batch', async () => {
    const { sut, mail, addressesOf } = setUp();

    await sut.send(
      [
        mailJob('adopter:7', { userId: 7 }, rendered('one')),
        mailJob('user:2', 'b@example.com', rendered('two')),
        mailJob('adopter:8', { userId: 8 }, rendered('three')),
      ],
      [1, 2, 3],
    );

    expect(addressesOf.mock.calls).toEqual([[[7, 8]]]);
    expect(mail.deliverOnce.mock.calls).toEqual([
      [1, 'u7@example.com', rendered('one')],
      [2, 'b@example.com', rendered('two')],
      [3, 'u8@example.com', rendered('three')],
    ]);
  });

  it('should send nothing, and end the job, for an account deleted since the mail was queued', async () => {
    const { sut, mail } = setUp();

    await sut.send([mailJob('adopter:404', { userId: 404 }, rendered('one'))], [1]);

    expect(mail.deliverOnce).not.toHaveBeenCalled();
  });

  it('should read no address for a batch of mails to addresses', async () => {
    const { sut, addressesOf } = setUp();

    await sut.send([mailJob('user:1', 'a@example.com', rendered('one'))], [1]);

    expect(addressesOf).not.toHaveBeenCalled();
  });
});
