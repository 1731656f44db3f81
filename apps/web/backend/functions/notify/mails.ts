/**
 * The mails of sharing (`mail_outbox` rows, see ../../SHARING.md): subject, plain text and a
 * simple HTML version. Every name comes from users (folder and file names, display names), so
 * the HTML escapes them and the subject keeps them on one line.
 */

/** A claimed `mail_outbox` row, as `claim_mail` returns it. */
export interface OutboxRow {
  id: string;
  kind: 'invited' | 'shared' | 'ownership';
  to_email: string;
  item_kind: 'file' | 'folder';
  item_id: string;
  item_name: string;
  role: string | null;
  sender_name: string;
  sender_email: string | null;
  invite_token: string | null;
}

export interface Composed {
  to: string;
  subject: string;
  text: string;
  html: string;
  link: string;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** One line (no control characters: a name cannot add a header or a line to the subject). */
const oneLine = (text: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed.
  text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

const ROLE_TEXT: Record<string, string> = {
  viewer: 'Viewer (you can see and download it)',
  editor: 'Editor (you can also add, rename, move and remove things)',
};

/** The link that opens what the mail is about (see apps/web/README.md, "Mail"). */
export function linkFor(site: string, row: OutboxRow): string {
  const base = site.replace(/\/+$/, '');
  if (row.kind === 'invited') {
    return row.invite_token
      ? `${base}/invite/${encodeURIComponent(row.invite_token)}`
      : `${base}/sign-up`;
  }
  if (row.item_kind === 'folder') return `${base}/files/${encodeURIComponent(row.item_id)}`;
  // A file: listed in "Shared with me"; after a transfer, in the new owner's My files.
  return row.kind === 'ownership' ? `${base}/files` : `${base}/shared`;
}

export function compose(site: string, row: OutboxRow): Composed {
  const who = oneLine(row.sender_name) || oneLine(row.sender_email ?? '') || 'Someone';
  const email = row.sender_email && oneLine(row.sender_name) ? ` (${row.sender_email})` : '';
  const name = oneLine(row.item_name);
  const what = row.item_kind === 'folder' ? 'the folder' : 'the file';
  const link = linkFor(site, row);
  let subject: string;
  let lines: string[];
  let action: string;
  if (row.kind === 'ownership') {
    subject = `${who} made you the owner of “${name}”`;
    lines = [
      `${who}${email} made you the owner of ${what} “${name}” on Drive.`,
      'It is in your My files now and counts against your storage; they can still edit it.',
    ];
    action = 'Open My files';
  } else {
    subject = `${who} shared “${name}” with you`;
    const role = ROLE_TEXT[row.role ?? ''] ?? 'Viewer';
    lines = [`${who}${email} shared ${what} “${name}” with you on Drive, as ${role}.`];
    if (row.kind === 'invited') {
      lines.push(
        `There is no Drive account for ${row.to_email} yet. Create one with this address (or sign in) from this link to open it:`,
      );
      action = 'Accept the invitation';
    } else {
      action = row.item_kind === 'folder' ? 'Open the folder' : 'Open Shared with me';
    }
  }
  const footer = 'If you did not expect this mail, you can ignore it.';
  const text = `${lines.join('\n\n')}\n\n${action}: ${link}\n\n${footer}\n`;
  const paragraphs = lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n');
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; line-height: 1.5">
${paragraphs}
<p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p>
<p style="color: #555">${escapeHtml(footer)}</p>
</body></html>
`;
  return { to: row.to_email, subject, text, html, link };
}
