/**
 * Binding an HTTP(S) server of the runtime (the health server, the webhook server): listen, fail on
 * the bind error instead of emitting it, and say where a local client reaches it (127.0.0.1 for
 * all interfaces).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  port: number;
  /** `<scheme>://<host>:<port>`, the host a client on this machine uses. */
  url: string;
  /** Stops listening and ends open connections; resolves when the port is free. */
  close(): Promise<void>;
}

export async function listen(
  server: Server,
  scheme: 'http' | 'https',
  port: number,
  host?: string,
): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const local = host && host !== '0.0.0.0' && host !== '::' ? host : '127.0.0.1';
  return {
    port: bound,
    url: `${scheme}://${local.includes(':') ? `[${local}]` : local}:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
