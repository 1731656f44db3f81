import type { ServerConfig } from '../config/index';
import type { Queryable } from '../db/index';
import { keep } from '../mail/outbox';

/** Why a code was sent. */
export type SmsType = 'confirmation' | 'phone_change' | 'reauthentication' | 'mfa';

/** A text message as the server sent it. */
export interface Sms {
  /** The number, digits only (E.164 without `+`). */
  to: string;
  body: string;
  channel: 'sms' | 'whatsapp';
  type: SmsType;
  /** The one-time code in the message. */
  otp: string;
  /** `outbox` when only kept here, `twilio` when the provider took it too. */
  provider: 'outbox' | 'twilio';
  /** The provider's message id (Twilio's `sid`), or null. */
  message_id: string | null;
  /** ISO time the message was sent. */
  sent_at: string;
}

/** The kept text messages, beside the mail outbox (see `MAIL_OUTBOX_SQL`). */
export const SMS_OUTBOX_SQL = /* sql */ `
create schema if not exists _auth;
create table if not exists _auth.sms_outbox (
  id bigint generated always as identity primary key,
  sms jsonb not null
);
`;

/**
 * Every text message the server sends: kept in the database (the last 500), where every
 * replica on one database sees them, and logged.
 */
export class SmsOutbox {
  readonly #db: Queryable;
  readonly #log: (message: string) => void;

  constructor(db: Queryable, log: (message: string) => void) {
    this.#db = db;
    this.#log = log;
  }

  async record(sms: Omit<Sms, 'sent_at'>): Promise<void> {
    await keep(this.#db, '_auth.sms_outbox', 'sms', { ...sms, sent_at: new Date().toISOString() });
    this.#log(`sms (${sms.type}, ${sms.channel}) to +${sms.to}: ${sms.body}`);
  }

  /** Messages newest first, optionally only those to one number (`+` and spaces ignored). */
  async list(to?: string): Promise<Sms[]> {
    const { rows } = await this.#db.query<{ sms: Sms }>(
      `select sms from _auth.sms_outbox where $1::text is null or sms->>'to' = $1 order by id desc`,
      [to?.replace(/[+\s]/g, '') ?? null],
    );
    return rows.map((r) => r.sms);
  }

  async clear(): Promise<void> {
    await this.#db.query('delete from _auth.sms_outbox');
  }
}

const outboxes = new WeakMap<ServerConfig, SmsOutbox>();

/** The one SMS outbox of a running server (shared by auth and the dev route). */
export function smsOutboxFor(
  config: ServerConfig,
  db: Queryable,
  log: (message: string) => void,
): SmsOutbox {
  let outbox = outboxes.get(config);
  if (!outbox) {
    outbox = new SmsOutbox(db, log);
    outboxes.set(config, outbox);
  }
  return outbox;
}
