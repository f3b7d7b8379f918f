/**
 * A TCP pass-through in front of the API server that can be switched to "dead": every connection, open
 * or new, then goes silent (bytes are swallowed, nothing answers), as a partitioned network or a hung
 * node looks to a client. TLS passes through untouched, so the client keeps the real credentials.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { KubeClient } from '../../src/runtime/kube/client.js';
import type { ClusterConfig } from '../../src/runtime/kube/kubeconfig.js';
import { configFor } from './envtest.js';

export class TcpSwitch {
  private dead = false;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly config: ClusterConfig,
  ) {}

  /** Listens on 127.0.0.1 and forwards to the current cluster of the kubeconfig at `kubeconfigPath`. */
  static async start(kubeconfigPath: string): Promise<TcpSwitch> {
    const real = configFor(kubeconfigPath);
    const upstream = real.server;
    let self: TcpSwitch | undefined;
    const server = net.createServer((socket) => self?.accept(socket, upstream));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const config: ClusterConfig = { ...real, server: new URL(`${upstream.protocol}//127.0.0.1:${port}`) };
    self = new TcpSwitch(server, config);
    return self;
  }

  /** A client whose every request goes through this switch. */
  client(): KubeClient {
    return new KubeClient(this.config);
  }

  /** From now on nothing gets through, in either direction, on any connection. */
  kill(): void {
    this.dead = true;
  }

  private accept(socket: net.Socket, upstream: URL): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (this.dead) {
      socket.resume(); // swallow the client's bytes, never answer
      return;
    }
    const port = Number(upstream.port || (upstream.protocol === 'https:' ? 443 : 80));
    const remote = net.connect(port, upstream.hostname);
    this.sockets.add(remote);
    remote.on('close', () => this.sockets.delete(remote));
    remote.on('error', () => socket.destroy());
    socket.on('close', () => remote.destroy());
    remote.on('close', () => socket.destroy());
    socket.on('data', (chunk) => {
      if (!this.dead) remote.write(chunk);
    });
    remote.on('data', (chunk) => {
      if (!this.dead) socket.write(chunk);
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
