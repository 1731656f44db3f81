/**
 * Child process of the upload bench: a real server (in-memory PGlite) with a `bench` bucket,
 * so the clients and the server do not share one event loop. Prints its URL and keys as one
 * JSON line, stops when stdin closes.
 */
import { startServer } from '@app/backend-server';

const server = await startServer({ port: 0, storage: { fileSizeLimit: 4 * 1024 ** 3 } });
await server.db.query(`insert into storage.buckets (id, name) values ('bench', 'bench')`);
process.stdout.write(
  `${JSON.stringify({ url: server.url, anonKey: server.anonKey, serviceRoleKey: server.serviceRoleKey })}\n`,
);
process.stdin.resume();
process.stdin.on('end', () => void server.stop().then(() => process.exit(0)));
