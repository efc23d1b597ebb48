import { expect } from "vitest";
import type { Reply } from "./http.js";

const REQ_ID = /^req-[A-Za-z0-9]{14}$/;

/**
 * SPEC.md's error body, exactly: `{reqId, statusCode, message, error}` plus `details` only on
 * 400/403, `reqId` equal to the `x-request-id` header.
 */
export function expectErrorBody(reply: Reply, status: number, error: string) {
  expect(reply.status).toBe(status);
  expect(reply.headers["content-type"]).toMatch(/^application\/json/);
  const body = reply.json;
  expect(body).toBeTypeOf("object");
  expect(body.reqId).toMatch(REQ_ID);
  expect(reply.headers["x-request-id"]).toBe(body.reqId);
  expect(body.statusCode).toBe(status);
  expect(body.error).toBe(error);
  const allowed = ["reqId", "statusCode", "message", "error", ...([400, 403].includes(status) ? ["details"] : [])];
  for (const key of Object.keys(body)) expect(allowed).toContain(key);
  if (status !== 422) expect(body.message).toBeTypeOf("string");
  return body;
}
