import type { ServerConfig } from '../config/index';

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

const KEEP = 500;

/** Every text message the server sends: kept in memory (the last 500) and logged. */
export class SmsOutbox {
  readonly #messages: Sms[] = [];
  readonly #log: (message: string) => void;

  constructor(log: (message: string) => void) {
    this.#log = log;
  }

  record(sms: Omit<Sms, 'sent_at'>): void {
    this.#messages.push({ ...sms, sent_at: new Date().toISOString() });
    if (this.#messages.length > KEEP) this.#messages.splice(0, this.#messages.length - KEEP);
    this.#log(`sms (${sms.type}, ${sms.channel}) to +${sms.to}: ${sms.body}`);
  }

  /** Messages newest first, optionally only those to one number (`+` and spaces ignored). */
  list(to?: string): Sms[] {
    const wanted = to?.replace(/[+\s]/g, '');
    return this.#messages.filter((m) => wanted === undefined || m.to === wanted).reverse();
  }

  clear(): void {
    this.#messages.length = 0;
  }
}

const outboxes = new WeakMap<ServerConfig, SmsOutbox>();

/** The one SMS outbox of a running server (shared by auth and the dev route). */
export function smsOutboxFor(config: ServerConfig, log: (message: string) => void): SmsOutbox {
  let outbox = outboxes.get(config);
  if (!outbox) {
    outbox = new SmsOutbox(log);
    outboxes.set(config, outbox);
  }
  return outbox;
}
