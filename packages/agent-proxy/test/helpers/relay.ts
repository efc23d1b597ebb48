import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";

/**
 * A TCP relay on 127.0.0.1 in front of the API server, so a test can take "the server" away and
 * bring it back on the same address without touching the server itself.
 */
export interface Relay {
  url: string;
  /** Closes the listener and cuts every relayed connection: the server is unreachable. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(targetUrl: string): Promise<Relay> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.once("close", () => sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  };
  const down = async () => {
    if (!server) return;
    const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closing;
    server = undefined;
  };
  await listen();
  return { url: `http://127.0.0.1:${port}`, down, up: listen, close: down };
}
