/**
 * Functions scenarios: every body type, methods, headers, region, each response type, and
 * each kind of failure. `echo` reports what it received; `mirror` sends the bytes back.
 */
import type { Scenario } from '../scenario';

const invoke = (
  id: string,
  name: string,
  options: () => Record<string, unknown> = () => ({}),
): Scenario => ({
  id: `functions.${id}`,
  run: (c) => c.functions.invoke(name, options()),
});

export const functionsScenarios: Scenario[] = [
  invoke('no-body', 'echo'),
  invoke('json-object', 'echo', () => ({ body: { name: 'Ada', n: 1 } })),
  invoke('json-array', 'echo', () => ({ body: [1, 'two'] })),
  invoke('string', 'echo', () => ({ body: 'plain text' })),
  invoke('blob', 'echo', () => ({ body: new Blob(['blob bytes'], { type: 'text/x-custom' }) })),
  invoke('array-buffer', 'mirror', () => ({ body: new Uint8Array([1, 2, 3]).buffer })),
  invoke('typed-array', 'echo', () => ({ body: new Uint8Array([104, 105]) })),
  invoke('form-data', 'echo', () => {
    const form = new FormData();
    form.append('field', 'value');
    return { body: form };
  }),
  invoke('url-search-params', 'echo', () => ({ body: new URLSearchParams({ a: '1', b: 'two' }) })),
  invoke('stream', 'echo', () => ({
    body: new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed'));
        controller.close();
      },
    }),
  })),
  invoke('caller-content-type', 'echo', () => ({
    body: 'a=1',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })),
  invoke('get-with-region', 'echo', () => ({ method: 'GET', region: 'eu-west-1' })),
  invoke('put-headers', 'echo', () => ({
    method: 'PUT',
    body: { x: 1 },
    headers: { 'x-custom': 'yes' },
  })),
  invoke('subpath', 'echo/deeper/path'),
  invoke('text-response', 'text'),
  invoke('event-stream', 'events'),
  invoke('http-error', 'teapot'),
  invoke('relay-error', 'relay'),
  invoke('not-found', 'does-not-exist'),
  invoke('throws', 'fail'),
  {
    id: 'functions.signed-out',
    client: { signedIn: false },
    run: (c) => c.functions.invoke('echo', { body: { who: 'anon' } }),
  },
];
