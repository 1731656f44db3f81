import type { Transporter } from 'nodemailer';
import type { ServerConfig } from '../config/index';

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

const KEEP = 500;

/**
 * Every mail the server sends goes here: kept in memory (newest last, the last 500),
 * logged when logging is on, and sent through SMTP when an SMTP URL is configured.
 */
export class Outbox {
  readonly #mails: Mail[] = [];
  readonly #smtpUrl: string | null;
  /** Created on the first mail: nodemailer is only loaded when SMTP is configured. */
  #transport: Promise<Transporter> | null = null;
  readonly #log: (message: string) => void;

  constructor(options: { smtpUrl: string | null; log: (message: string) => void }) {
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
    this.#mails.push(stored);
    if (this.#mails.length > KEEP) this.#mails.splice(0, this.#mails.length - KEEP);
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
  list(to?: string): Mail[] {
    const wanted = to?.toLowerCase();
    return this.#mails
      .filter((m) => wanted === undefined || m.to.toLowerCase() === wanted)
      .reverse();
  }

  /** Forgets every kept mail. */
  clear(): void {
    this.#mails.length = 0;
  }

  close(): void {
    void this.#transport?.then((t) => t.close()).catch(() => {});
  }
}

const outboxes = new WeakMap<ServerConfig, Outbox>();

/** The one outbox of a running server (shared by the auth service and the dev mail route). */
export function outboxFor(config: ServerConfig, log: (message: string) => void): Outbox {
  let outbox = outboxes.get(config);
  if (!outbox) {
    outbox = new Outbox({ smtpUrl: config.auth.smtpUrl, log });
    outboxes.set(config, outbox);
  }
  return outbox;
}
