import type { MailConfig } from '../../config/mail.config.js';

/** The console's pages that mails link to. */
export type ConsolePage = 'verify-email' | 'reset-password';

/** A link to a page of the console, on PUBLIC_BASE_URL, with a mailed token when given. */
export function consoleLink(
  { linkBaseUrl }: Pick<MailConfig, 'linkBaseUrl'>,
  page: ConsolePage,
  token?: string,
): string {
  const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
  return `${linkBaseUrl}/console/${page}${query}`;
}
