import { describe, expect, it, jest } from '@jest/globals';
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
  return { sut: new MailSender(mail as unknown as MailService), mail };
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
});
