import type { MailType, OutgoingMail } from './outbox';

const SUBJECTS: Record<MailType, string> = {
  signup: 'Confirm Your Signup',
  invite: 'You have been invited',
  magiclink: 'Your Magic Link',
  recovery: 'Reset Your Password',
  email_change: 'Confirm Email Change',
  email_change_current: 'Confirm Email Change',
  email_change_new: 'Confirm Email Change',
  reauthentication: 'Confirm reauthentication',
};

const LEADS: Record<MailType, string> = {
  signup: 'Follow this link to confirm your user:',
  invite: 'You have been invited to create a user. Follow this link to accept the invite:',
  magiclink: 'Follow this link to login:',
  recovery: 'Follow this link to reset the password for your user:',
  email_change: 'Follow this link to confirm the update of your email:',
  email_change_current: 'Follow this link to confirm the update of your email:',
  email_change_new: 'Follow this link to confirm the update of your email:',
  reauthentication: 'Enter the code:',
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The mail of an auth flow: subject, text and HTML with the action link and the code. */
export function authMail(
  type: MailType,
  to: string,
  content: { link: string | null; otp: string | null; newEmail?: string | null },
): OutgoingMail {
  const lines = [SUBJECTS[type], ''];
  if (content.newEmail) lines.push(`New email address: ${content.newEmail}`, '');
  lines.push(LEADS[type]);
  if (content.link) lines.push(content.link);
  if (content.otp) lines.push('', `Alternatively, enter the code: ${content.otp}`);
  const html = [
    `<h2>${escapeHtml(SUBJECTS[type])}</h2>`,
    content.newEmail ? `<p>New email address: ${escapeHtml(content.newEmail)}</p>` : '',
    `<p>${escapeHtml(LEADS[type])}</p>`,
    content.link
      ? `<p><a href="${escapeHtml(content.link)}">${escapeHtml(content.link)}</a></p>`
      : '',
    content.otp ? `<p>Alternatively, enter the code: ${escapeHtml(content.otp)}</p>` : '',
  ].join('');
  return {
    to,
    subject: SUBJECTS[type],
    type,
    text: lines.join('\n'),
    html,
    links: content.link ? [content.link] : [],
    otp: content.otp,
  };
}
