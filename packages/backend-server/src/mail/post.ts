import type { OutgoingMail } from './outbox';

const EMAIL = /^[^\s@<>,;"]+@[^\s@<>,;"]+$/;
const LINK = /https?:\/\/[^\s<>"')]+/g;
const LIMITS = { to: 320, subject: 998, text: 100_000, html: 200_000, from: 320 };

/**
 * The body of `POST /_dev/mail` — `{from?, to, subject, text, html?}`, the shape of common
 * mail providers' HTTP APIs — as an outbox mail of type `app`, or the reason it is refused.
 * The links are those of the plain text, in order.
 */
export function postedMail(body: unknown): OutgoingMail | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return 'Expected a JSON object {to, subject, text, html?, from?}';
  }
  const { to, subject, text, html, from } = body as Record<string, unknown>;
  if (typeof to !== 'string' || to.length > LIMITS.to || !EMAIL.test(to)) {
    return '`to` must be one email address';
  }
  if (typeof subject !== 'string' || subject.trim() === '' || subject.length > LIMITS.subject) {
    return `\`subject\` must be a non-empty string of at most ${LIMITS.subject} characters`;
  }
  if (/[\r\n]/.test(subject)) return '`subject` must be one line';
  if (typeof text !== 'string' || text.trim() === '' || text.length > LIMITS.text) {
    return `\`text\` must be a non-empty string of at most ${LIMITS.text} characters`;
  }
  if (html !== undefined && (typeof html !== 'string' || html.length > LIMITS.html)) {
    return `\`html\` must be a string of at most ${LIMITS.html} characters`;
  }
  if (from !== undefined && (typeof from !== 'string' || from.length > LIMITS.from)) {
    return '`from` must be a string';
  }
  return {
    to,
    subject,
    type: 'app',
    text,
    html: typeof html === 'string' ? html : '',
    links: text.match(LINK) ?? [],
    otp: null,
  };
}
