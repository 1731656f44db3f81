import { createServer, type Server } from 'node:net';

/** A minimal SMTP sink on a free port: records envelopes and message data. */
export async function smtpSink(): Promise<{ port: number; received: string[]; server: Server }> {
  const received: string[] = [];
  const server = createServer((socket) => {
    let buffer = '';
    let message: string | null = null;
    socket.write('220 localhost ESMTP sink\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (message !== null) {
          if (line === '.') {
            received.push(message);
            message = null;
            socket.write('250 queued\r\n');
          } else message += `${line}\n`;
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'DATA') {
          message = '';
          socket.write('354 end with .\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
        } else {
          if (verb === 'MAIL' || verb === 'RCPT') received.push(line);
          socket.write('250 ok\r\n');
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, received, server };
}
