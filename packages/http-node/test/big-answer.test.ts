import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it } from "vitest";
import { TEXT_PART } from "../src/answers/text-parts.js";
import { sendJsonAnswer } from "../src/respond.js";

it("a big answer sent a part at a time arrives whole, characters across parts intact, with its length", async () => {
  // An emoji (a surrogate pair) straddles the first part's end; two-byte letters fill the next parts.
  const text = JSON.stringify(`${"x".repeat(TEXT_PART - 2)}\u{1F600}${"é".repeat(TEXT_PART * 2)}`);
  expect(text.charCodeAt(TEXT_PART - 1)).toBe(0xd83d);
  const server = createServer((_, res) => void sendJsonAnswer(res, 200, text, { etag: '"t"' }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(answer.headers.get("etag")).toBe('"t"');
    expect(await answer.text()).toBe(text);
  } finally {
    server.close();
  }
});
