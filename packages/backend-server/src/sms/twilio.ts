import type { TwilioOptions } from '../config/index';

/** A refusal or failure of the SMS provider (its message is safe to show). */
export class SmsProviderError extends Error {}

/** Seconds a request to the provider may take. */
const TIMEOUT_MS = 10_000;

/**
 * Sends one message through a Twilio-compatible Messages API and returns the message SID.
 * WhatsApp goes to `whatsapp:+<number>`; with a content SID the code fills its template.
 */
export async function sendTwilio(
  options: TwilioOptions,
  message: { to: string; body: string; channel: 'sms' | 'whatsapp'; otp: string },
  fetchImpl: typeof fetch = fetch,
): Promise<string> {
  const base = (options.baseUrl ?? 'https://api.twilio.com').replace(/\/+$/, '');
  const url = `${base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  let to = `+${message.to}`;
  let from = options.messageServiceSid;
  const form = new URLSearchParams();
  if (message.channel === 'whatsapp') {
    to = `whatsapp:${to}`;
    if (/^\+?[1-9]\d{1,14}$/.test(from.replace(/ /g, ''))) from = `whatsapp:${from}`;
  }
  form.set('To', to);
  form.set('Channel', message.channel);
  form.set('From', from);
  if (message.channel === 'whatsapp' && options.contentSid) {
    form.set('ContentSid', options.contentSid);
    form.set('ContentVariables', JSON.stringify({ 1: message.otp }));
  } else {
    form.set('Body', message.body);
  }
  const auth = Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64');
  let res: Response;
  try {
    res = await fetchImpl(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${auth}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new SmsProviderError(`request failed: ${(error as Error).message}`);
  }
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {}
  if (res.status !== 200 && res.status !== 201) {
    const more = body.more_info ? ` More information: ${String(body.more_info)}` : '';
    throw new SmsProviderError(`${String(body.message ?? `status ${res.status}`)}${more}`);
  }
  const sid = typeof body.sid === 'string' ? body.sid : '';
  if (body.status === 'failed' || body.status === 'undelivered') {
    throw new SmsProviderError(
      `twilio error: ${String(body.error_message ?? '')} ${String(body.error_code ?? '')} for message ${sid}`,
    );
  }
  return sid;
}
