import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex, Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { endToEndRawHeaders } from "../http/hop-by-hop.js";
import { Scrubber, scrubText, type FormAutomaton } from "./reflection.js";

/**
 * The upstream's answer on its way to the agent. Unbrokered answers are piped as they are. For a
 * brokered request every response header, the status text and the body pass through the
 * scrubber (reflection.ts); a compressed body is decoded first, since the scrubber cannot see into
 * it (the proxy asks for `identity`, so this only happens when an upstream ignores that).
 */
export class UnscrubbableResponseError extends Error {}

export function relayResponse(answer: IncomingMessage, res: ServerResponse, method: string, forms: FormAutomaton | null): void {
  const status = answer.statusCode ?? 502;
  const headers = endToEndRawHeaders(answer.rawHeaders);
  if (forms === null) {
    res.writeHead(status, answer.statusMessage, headers);
    answer.pipe(res);
    answer.on("error", () => res.destroy());
    return;
  }
  const decoder = carriesBody(method, status) ? decoderFor(headerValues(headers, "content-encoding")) : null;
  const scrubbed: string[] = [];
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!.toLowerCase();
    // The decoded body has neither this encoding nor this length any more.
    if (decoder && (name === "content-encoding" || name === "content-length")) continue;
    // Same-length masking keeps Content-Length right; it holds digits only, which Node checks.
    scrubbed.push(headers[i]!, name === "content-length" ? headers[i + 1]! : scrubText(headers[i + 1]!, forms));
  }
  res.writeHead(status, scrubText(answer.statusMessage ?? "", forms) || undefined, scrubbed);
  const source: Readable = decoder ? answer.pipe(decoder) : answer;
  if (decoder) answer.once("error", () => decoder.destroy());
  relayScrubbed(source, res, new Scrubber(forms), () => {
    answer.destroy();
    decoder?.destroy();
  });
}

/**
 * Body chunks through the scrubber to the agent, with backpressure; no Transform stream, which
 * would cost every brokered answer a stream's machinery for what is a loop over its bytes.
 */
function relayScrubbed(source: Readable, res: ServerResponse, scrubber: Scrubber, abandon: () => void): void {
  source.on("data", (chunk: Buffer) => {
    const ready = scrubber.push(chunk);
    if (ready.length && !res.write(ready)) {
      source.pause();
      res.once("drain", () => source.resume());
    }
  });
  let ended = false;
  source.once("end", () => {
    ended = true;
    res.end(scrubber.end());
  });
  // Cut short (an error, or the upstream connection gone): the agent sees the cut, not a truncated answer.
  const cut = () => {
    if (ended) return;
    abandon();
    res.destroy();
  };
  source.once("error", cut);
  source.once("close", cut);
  res.once("close", () => {
    if (!res.writableFinished) abandon();
  });
}

const carriesBody = (method: string, status: number) => method !== "HEAD" && status >= 200 && status !== 204 && status !== 304;

function headerValues(raw: readonly string[], wanted: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === wanted) values.push(...raw[i + 1]!.split(","));
  return values.map((value) => value.trim().toLowerCase()).filter((value) => value && value !== "identity");
}

/** Null for an unencoded body; throws for an encoding the proxy cannot undo. */
function decoderFor(codings: readonly string[]): Duplex | null {
  if (codings.length === 0) return null;
  if (codings.length > 1) throw new UnscrubbableResponseError(`the upstream answered with several content codings (${codings.join(", ")})`);
  switch (codings[0]) {
    case "gzip":
    case "x-gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
    default:
      throw new UnscrubbableResponseError(`the upstream answered with content coding "${codings[0]}", which the proxy cannot inspect`);
  }
}
