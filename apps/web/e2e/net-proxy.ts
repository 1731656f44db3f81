import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';

/**
 * A TCP proxy in front of the backend, standing for one device's network: `cut()` drops
 * every open connection (the device's sockets die, as when its network goes or it sleeps
 * and the server gives up on it), `block()` refuses new ones until `unblock()`.
 */
export interface NetProxy {
  url: string;
  cut(): void;
  block(): void;
  unblock(): void;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<NetProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let blocked = false;
  const server = createServer((client) => {
    if (blocked) {
      client.destroy();
      return;
    }
    const upstream = new (client.constructor as typeof Socket)();
    upstream.connect(Number(port), hostname);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  const cut = () => {
    for (const socket of [...open]) socket.destroy();
    open.clear();
  };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut,
    block() {
      blocked = true;
    },
    unblock() {
      blocked = false;
    },
    close: () =>
      new Promise((resolve) => {
        cut();
        server.close(() => resolve());
      }),
  };
}
