/**
 * The page each browser tab loads: one SDK client with the default storage (localStorage),
 * Web Locks and BroadcastChannel, as an app has it. It records its auth events and holds a
 * lock named after the tab, so the test can tell which tab holds the refresh lock.
 */
import { createClient, type Session } from '../../src/index';

const params = new URLSearchParams(location.search);
const tab = params.get('tab') ?? '?';
const client = createClient(params.get('url') as string, params.get('key') as string, {
  auth: {
    lockTimeout: Number(params.get('lockTimeout')),
    refreshTimeout: Number(params.get('refreshTimeout')),
  },
});

const page = globalThis as unknown as {
  client: typeof client;
  events: Array<{ event: string; refresh: string | null }>;
  latest: Session | null;
  tab: string;
};
page.client = client;
page.tab = tab;
page.events = [];
page.latest = null;
client.auth.onAuthStateChange((event, session) => {
  page.events.push({ event, refresh: session?.refresh_token ?? null });
  page.latest = session;
});
void navigator.locks.request(`tab-${tab}`, () => new Promise(() => {}));
