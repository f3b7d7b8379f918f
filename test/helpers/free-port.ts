/**
 * A TCP port free on 127.0.0.1 right now, for a process a test or bench starts (an operator's health
 * or webhook server): the kernel picks it for a listener that is closed at once. Another process may
 * take it in between; the tests start what uses it right away.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
