import type { Mail } from './mail.js';

/** What a template says (docs/mail.md, "Templates"): paragraphs, and at most one link to act on. */
export interface MailContent {
  template: string;
  subject: string;
  greeting: string;
  paragraphs: string[];
  action?: { label: string; url: string };
}

const SIGNATURE = 'The pet store';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Every interpolated value goes into HTML through this: names come from the people. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]);
}

/** Both bodies from one content, so that they always say the same. */
export function composeMail({
  template,
  subject,
  greeting,
  paragraphs,
  action,
}: MailContent): Mail {
  const text = [
    greeting,
    ...paragraphs,
    ...(action ? [`${action.label}:\n${action.url}`] : []),
    `-- \n${SIGNATURE}`,
  ].join('\n\n');
  const html = [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><title>' + escapeHtml(subject) + '</title></head>',
    '<body style="font-family: sans-serif; line-height: 1.5">',
    `<p>${escapeHtml(greeting)}</p>`,
    ...paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...(action
      ? [`<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>`]
      : []),
    `<p>${escapeHtml(SIGNATURE)}</p>`,
    '</body></html>',
  ].join('\n');
  return { template, subject, text: `${text}\n`, html, links: action ? [action.url] : [] };
}

/**
 * "Hello alice,", or "Hello," without a name: a mail to an address not yet verified greets
 * no one, since the name was chosen by whoever asked for it, perhaps not the address's owner.
 */
export const greetingOf = (username: string | null) =>
  username === null ? 'Hello,' : `Hello ${username},`;
