/**
 * A page with one SDK client that joins the broadcast channel `room` and records its
 * statuses and the `ping` messages it hears. The realtime timeout and the heartbeat interval
 * come from the query string.
 */
import { createClient } from '../../src/index';

const params = new URLSearchParams(location.search);
const client = createClient(params.get('url') as string, params.get('key') as string, {
  realtime: {
    timeout: Number(params.get('timeout')),
    heartbeatIntervalMs: Number(params.get('heartbeat')),
  },
});

const page = globalThis as unknown as { statuses: string[]; pings: unknown[] };
page.statuses = [];
page.pings = [];
client
  .channel('room')
  .on('broadcast', { event: 'ping' }, (message) => page.pings.push(message.payload))
  .subscribe((status) => page.statuses.push(status));
