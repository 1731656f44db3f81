import type { Transporter } from 'nodemailer';
import type { ServerConfig } from '../config/index';
import type { Queryable } from '../db/index';

/** What a mail is about (the auth flow that sent it). */
export type MailType =
  | 'signup'
  | 'invite'
  | 'magiclink'
  | 'recovery'
  | 'email_change'
  | 'email_change_current'
  | 'email_change_new'
  | 'reauthentication';

/** A mail as the server would send it (`app`: posted by a project's function, `POST /_dev/mail`). */
export interface Mail {
  to: string;
  subject: string;
  type: MailType | 'app';
  text: string;
  html: string;
  /** Links in the mail (the action link first). */
  links: string[];
  /** The one-time code in the mail, when there is one. */
  otp: string | null;
  /** ISO time the mail was sent. */
  sent_at: string;
}

/** The mail a flow hands to the outbox (sent_at is added). */
export type OutgoingMail = Omit<Mail, 'sent_at'>;

/** Mails kept; older ones are deleted as new ones arrive. */
const KEEP = 500;

/**
 * The kept mails, in a private schema (never dumped or exported): every replica on one
 * database records into it and reads it, so any replica's `/_dev/mail` and console show the
 * mails all of them sent.
 */
export const MAIL_OUTBOX_SQL = /* sql */ `
create schema if not exists _auth;
create table if not exists _auth.mail_outbox (
  id bigint generated always as identity primary key,
  mail jsonb not null
);
`;

/**
 * Every mail the server sends goes here: kept in the database (the last 500), logged when
 * logging is on, and sent through SMTP when an SMTP URL is configured.
 */
export class Outbox {
  readonly #db: Queryable;
  readonly #smtpUrl: string | null;
  /** Created on the first mail: nodemailer is only loaded when SMTP is configured. */
  #transport: Promise<Transporter> | null = null;
  readonly #log: (message: string) => void;

  constructor(options: { db: Queryable; smtpUrl: string | null; log: (message: string) => void }) {
    this.#db = options.db;
    this.#smtpUrl = options.smtpUrl;
    this.#log = options.log;
  }

  #smtp(): Promise<Transporter> | null {
    const url = this.#smtpUrl;
    if (!url) return null;
    this.#transport ??= import('nodemailer').then((m) => m.createTransport(url));
    return this.#transport;
  }

  /** Records a mail (and relays it through SMTP when configured; failures are logged). */
  async send(mail: OutgoingMail): Promise<void> {
    const stored: Mail = { ...mail, sent_at: new Date().toISOString() };
    await keep(this.#db, '_auth.mail_outbox', 'mail', stored);
    this.#log(
      `mail (${mail.type}) to ${mail.to}: ${mail.subject}${mail.otp ? ` — code ${mail.otp}` : ''}${mail.links[0] ? ` — ${mail.links[0]}` : ''}`,
    );
    const smtp = this.#smtp();
    if (smtp) {
      try {
        await (await smtp).sendMail({
          from: 'noreply@localhost',
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
      } catch (error) {
        this.#log(`mail to ${mail.to} not relayed: ${(error as Error).message}`);
      }
    }
  }

  /** Mails newest first, optionally only those to one address (case-insensitive). */
  async list(to?: string): Promise<Mail[]> {
    const { rows } = await this.#db.query<{ mail: Mail }>(
      `select mail from _auth.mail_outbox
        where $1::text is null or lower(mail->>'to') = lower($1) order by id desc`,
      [to ?? null],
    );
    return rows.map((r) => r.mail);
  }

  /** Forgets every kept mail. */
  async clear(): Promise<void> {
    await this.#db.query('delete from _auth.mail_outbox');
  }

  close(): void {
    void this.#transport?.then((t) => t.close()).catch(() => {});
  }
}

/**
 * Inserts `value` as the newest row of an outbox `table` (its JSON column `column`) and
 * deletes the rows beyond the last {@link KEEP}.
 */
export async function keep(
  db: Queryable,
  table: '_auth.mail_outbox' | '_auth.sms_outbox',
  column: 'mail' | 'sms',
  value: object,
): Promise<void> {
  await db.query(
    `with added as (insert into ${table} (${column}) values ($1::text::jsonb) returning id)
     delete from ${table} where id <= (select id from added) - $2`,
    [JSON.stringify(value), KEEP],
  );
}

const outboxes = new WeakMap<ServerConfig, Outbox>();

/** The one outbox of a running server (shared by the auth service and the dev mail route). */
export function outboxFor(
  config: ServerConfig,
  db: Queryable,
  log: (message: string) => void,
): Outbox {
  let outbox = outboxes.get(config);
  if (!outbox) {
    outbox = new Outbox({ db, smtpUrl: config.auth.smtpUrl, log });
    outboxes.set(config, outbox);
  }
  return outbox;
}
