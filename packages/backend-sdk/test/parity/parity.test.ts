/**
 * Wire parity with supabase-js 2.109.0: every scenario runs through the official client and
 * through this SDK against the same real server; each HTTP request (method, path, query in
 * order, headers, body), each WebSocket frame and the result are recorded and compared. A
 * difference fails the scenario unless `intended-differences.ts` lists it with its reason,
 * and a listed difference that no longer occurs fails it too.
 */
import { appendFileSync } from 'node:fs';
import type { RunningServer } from '@app/backend-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkServer } from '../support/server';
import { type Ctx, context, createUser, makeClient, PASSWORD, type Side } from './harness';
import { globalRules, type IntendedDifference, intendedDifferences } from './intended-differences';
import type { Scenario } from './scenario';
import { authScenarios } from './scenarios/auth';
import { functionsScenarios } from './scenarios/functions';
import { keysScenarios } from './scenarios/keys';
import { mfaScenarios } from './scenarios/mfa';
import { oauthScenarios } from './scenarios/oauth';
import { realtimeScenarios } from './scenarios/realtime';
import { restScenarios } from './scenarios/rest';
import { storageScenarios } from './scenarios/storage';
import {
  comparableFrames,
  comparableRequest,
  comparableResult,
  differences,
  ruleHits,
  type Secrets,
} from './wire';

const scenarios: Scenario[] = [
  ...authScenarios,
  ...restScenarios,
  ...storageScenarios,
  ...functionsScenarios,
  ...realtimeScenarios,
  ...keysScenarios,
  ...oauthScenarios,
  ...mfaScenarios,
];

let server: RunningServer;
let secrets: Secrets;
const users = {} as Record<Side, Ctx['user']>;

beforeAll(async () => {
  server = await startSdkServer({
    sms: { enabled: true, autoconfirm: false },
    mfa: { phone: { enroll: true, verify: true } },
    emulateProviders: true,
    manualLinking: true,
    external: {
      github: {},
      google: {},
      'custom:parity': { issuer: 'https://id.parity.test' },
    },
  });
  secrets = {
    anonKey: server.anonKey,
    serviceRoleKey: server.serviceRoleKey,
    publishableKey: server.publishableKey,
    secretKey: server.secretKey,
  };
  await server.db.exec(`
    alter publication supabase_realtime add table public.todos;
    insert into storage.buckets (id, name, public) values
      ('parity-zoursz', 'parity-zoursz', true), ('parity-ztheirsz', 'parity-ztheirsz', true);
    create policy parity_objects on storage.objects for all to authenticated
      using (bucket_id like 'parity-%') with check (bucket_id like 'parity-%');
  `);
  users.theirs = await createUser(server, 'user-ztheirsz@example.com');
  users.ours = await createUser(server, 'user-zoursz@example.com');
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

/** Runs a scenario on one side and returns its comparable record. */
async function record(side: Side, scenario: Scenario): Promise<Record<string, unknown>> {
  const ctx = context(side, server, users[side]);
  const setup = scenario.client ?? {};
  const made = makeClient(ctx, setup);
  try {
    if (setup.signedIn ?? !['service', 'secret'].includes(setup.key ?? 'anon')) {
      const { error } = await made.client.auth.signInWithPassword({
        email: ctx.user.email,
        password: PASSWORD,
      });
      if (error) throw error;
    }
    // Rows a scenario inserts get the same ids on both sides.
    await server.db.exec(
      "delete from public.todos where id >= 100000; select setval('public.todos_id_seq', 100000, false);",
    );
    const prepared = await scenario.setup?.(made.client, ctx);
    made.http.length = 0;
    made.ws.frames.length = 0;
    made.ws.urls.length = 0;
    const result = await scenario.run(made.client, ctx, prepared);
    const out: Record<string, unknown> = {
      requests: made.http.map((r) => comparableRequest(r, secrets)),
      result: await comparableResult(result, secrets),
    };
    if (made.ws.urls.length) out.frames = comparableFrames(made.ws.frames, made.ws.urls, secrets);
    return out;
  } finally {
    await made.close();
  }
}

/** Our result and our errors may carry fields of their own. */
const extraAllowed = (path: string) => path === 'result';

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s && s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

describe.sequential('wire parity with supabase-js 2.109.0', () => {
  for (const scenario of scenarios) {
    it(scenario.id, async () => {
      const theirs = await record('theirs', scenario);
      const ours = await record('ours', scenario);
      const found = differences(theirs, ours, '', extraAllowed);
      const listed = intendedDifferences.filter((d) => d.scenarios.includes(scenario.id));
      const covers = (l: IntendedDifference, path: string) =>
        l.path.endsWith('.**') ? path.startsWith(l.path.slice(0, -2)) : l.path === path;
      const unlisted = found
        .filter((d) => !listed.some((l) => covers(l, d.path)))
        .map((d) => `${d.path}: theirs ${show(d.theirs)} | ours ${show(d.ours)}`);
      const stale = listed
        .filter((l) => !found.some((d) => covers(l, d.path)))
        .map((l) => `${l.path} (listed, no longer differs)`);
      if (process.env.PARITY_REPORT)
        appendFileSync(
          process.env.PARITY_REPORT,
          `${JSON.stringify({ id: scenario.id, unlisted, stale, theirs, ours })}\n`,
        );
      expect({ unlisted, stale }).toEqual({ unlisted: [], stale: [] });
    });
  }

  it('lists differences of existing scenarios only, once each, and every global rule applies', () => {
    const ids = new Set(scenarios.map((s) => s.id));
    expect(ids.size).toBe(scenarios.length);
    const unknown = intendedDifferences.flatMap((d) => d.scenarios.filter((s) => !ids.has(s)));
    expect(unknown).toEqual([]);
    const keys = intendedDifferences.flatMap((d) => d.scenarios.map((s) => `${s} ${d.path}`));
    expect(keys.length).toBe(new Set(keys).size);
    expect(intendedDifferences.every((d) => d.reason.length > 20)).toBe(true);
    for (const rule of Object.keys(globalRules)) expect(ruleHits.get(rule) ?? 0).toBeGreaterThan(0);
  });
});
