import { Injectable } from '@nestjs/common';

type AddressReader = (userIds: number[]) => Promise<Map<number, string>>;

/**
 * Where the users module, a floor above, registers how to read accounts' addresses, so that
 * a mail queued to an account (`mailJob(subject, { userId }, mail)`) goes to its address as
 * it is when the mail leaves, read by the sender, without mail importing users.
 */
@Injectable()
export class MailRecipientsService {
  private reader: AddressReader = () =>
    Promise.reject(new Error('No reader of accounts’ addresses is registered'));

  register(reader: AddressReader): void {
    this.reader = reader;
  }

  /** Each account's address by id; a deleted account is left out. */
  addressesOf(userIds: number[]): Promise<Map<number, string>> {
    return this.reader(userIds);
  }
}
