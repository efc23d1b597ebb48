import { readFileSync } from "node:fs";
import { connect, type AddressInfo, type Socket } from "node:net";
import { createServer, type TLSSocket } from "node:tls";

/**
 * HTTPS in front of a test server, as a TLS-terminating load balancer would put it: each TLS
 * connection is piped byte for byte to the plain-HTTP server behind it.
 */
export interface TlsFront {
  url: string;
  close(): Promise<void>;
}

export async function startTlsFront(behind: string, certificate: { certFile: string; keyFile: string }): Promise<TlsFront> {
  const target = new URL(behind);
  const sockets = new Set<Socket>();
  const server = createServer({ cert: readFileSync(certificate.certFile), key: readFileSync(certificate.keyFile) }, (client: TLSSocket) => {
    const backend = connect(Number(target.port), target.hostname);
    for (const socket of [client, backend]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => (client.destroy(), backend.destroy()));
    }
    client.pipe(backend).pipe(client);
  });
  // A refused handshake (the point of one test) is not an error of the front.
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
