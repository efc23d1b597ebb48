import { connect } from "node:net";

/** What a proxy answers on the wire, for the cases a real client hides (407, a refused CONNECT). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string[]>;
  body: string;
}

/** Sends one request to the proxy on a fresh connection and reads until the proxy closes it. */
export function rawProxyRequest(proxyUrl: string, requestHead: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(requestHead));
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers: Record<string, string[]> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim().toLowerCase();
        (headers[name] ??= []).push(line.slice(colon + 1).trim());
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n") });
    });
  });
}

export const connectHead = (authority: string, headers: Record<string, string> = {}) =>
  `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
