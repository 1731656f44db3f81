/**
 * `claim_mail` (migrations/20261127001000_mail_delivery.sql), what `functions/notify` sends
 * with: claims made at the same time never share a mail, a claimed mail is not due again
 * before its back-off, and only the service role may claim — on PGlite and on PostgreSQL,
 * where the claims really run in parallel.
 */
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folder, newPerson, rpc, startDriveServer } from './support';

let server: RunningServer;

beforeAll(async () => {
  server = await startDriveServer();
});
afterAll(() => server?.stop());

const claim = async (sender: string | null, limit: number) => {
  const res = await fetch(`${server.url}/rest/v1/rpc/claim_mail`, {
    method: 'POST',
    headers: {
      apikey: server.serviceRoleKey,
      authorization: `Bearer ${server.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ p_sender: sender, p_limit: limit }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Array<{ id: string; to_email: string; attempts: number }>;
};

describe('claim_mail', () => {
  it('gives each due mail to one claim only, however many run at once', async () => {
    const owner = await newPerson(server);
    const box = await folder(owner, 'Many');
    const addresses = Array.from({ length: 24 }, (_, i) => `many-${i}-${Date.now()}@example.com`);
    for (const email of addresses) {
      await rpc(owner, 'share_with', {
        p_kind: 'folder',
        p_id: box.id,
        p_email: email,
        p_role: 'viewer',
      });
    }
    const claims = await Promise.all(Array.from({ length: 6 }, () => claim(owner.uid, 5)));
    const ids = claims.flat().map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Whatever the first round left is claimed next; then nothing is due.
    const rest = await claim(owner.uid, 200);
    expect([...ids, ...rest.map((m) => m.id)].length).toBe(24);
    expect(new Set([...claims.flat(), ...rest].map((m) => m.to_email))).toEqual(new Set(addresses));
    expect([...claims.flat(), ...rest].every((m) => m.attempts === 1)).toBe(true);
    expect(await claim(owner.uid, 200)).toEqual([]);
    expect(await claim(null, 200)).toEqual([]);
  });

  it('is the service role’s alone', async () => {
    const person = await newPerson(server);
    const res = await person.rpc('claim_mail', { p_sender: person.uid, p_limit: 5 });
    expect(res.error?.code).toBe('42501');
  });
});
