import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { connectionReusable } from "../src/upstream/connection-reuse.js";
import { frameHeaders, requestFraming } from "../src/http/framing.js";
import { endToEndHeaders, endToEndRawHeaders } from "../src/http/hop-by-hop.js";
import { originFormProblem } from "../src/http/request-target.js";

describe("request framing", () => {
  it.each<[string, string[], ReturnType<typeof requestFraming>["kind"]]>([
    ["no body", ["Host", "a"], "none"],
    ["Content-Length: 0", ["Content-Length", "0"], "none"],
    ["a length", ["Content-Length", "12"], "length"],
    ["chunked", ["Transfer-Encoding", "chunked"], "chunked"],
    ["chunked, any case", ["transfer-encoding", " Chunked "], "chunked"],
    ["length and chunked", ["Content-Length", "5", "Transfer-Encoding", "chunked"], "refused"],
    ["two equal lengths", ["Content-Length", "5", "Content-Length", "5"], "refused"],
    ["a length list", ["Content-Length", "5, 5"], "refused"],
    ["a signed length", ["Content-Length", "+5"], "refused"],
    ["a hex length", ["Content-Length", "0x5"], "refused"],
    ["gzip, chunked", ["Transfer-Encoding", "gzip, chunked"], "refused"],
    ["chunked twice", ["Transfer-Encoding", "chunked", "Transfer-Encoding", "chunked"], "refused"],
    ["identity", ["Transfer-Encoding", "identity"], "refused"],
  ])("%s → %s", (_name, raw, kind) => {
    expect(requestFraming(raw).kind).toBe(kind);
  });

  it("keeps the length it read", () => {
    expect(requestFraming(["Content-Length", "42"])).toEqual({ kind: "length", length: 42 });
  });

  it("states exactly one framing upstream, whatever the agent's headers said", () => {
    const agentHeaders = { "Content-Length": "9", "transfer-encoding": "chunked", accept: "*/*" };
    expect(frameHeaders(agentHeaders, { kind: "length", length: 5 })).toEqual({ accept: "*/*", "content-length": "5" });
    expect(frameHeaders(agentHeaders, { kind: "chunked" })).toEqual({ accept: "*/*", "transfer-encoding": "chunked" });
    expect(frameHeaders(agentHeaders, { kind: "none" })).toEqual({ accept: "*/*" });
  });

  it("a body always leaves with a framing header (property)", () => {
    const name = fc.constantFrom("Content-Length", "content-length", "Transfer-Encoding", "TRANSFER-ENCODING", "Connection", "Host", "X-Other");
    const value = fc.oneof(fc.nat({ max: 1000 }).map(String), fc.constantFrom("chunked", "gzip, chunked", "content-length", "close", "1, 1", ""));
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 6 }), (pairs) => {
        const raw = pairs.flat();
        const framing = requestFraming(raw);
        if (framing.kind === "refused" || framing.kind === "none") return;
        const headers = frameHeaders(endToEndHeaders(Object.fromEntries(pairs.map(([n, v]) => [n.toLowerCase(), v]))), framing);
        const stated = Object.keys(headers).filter((n) => n === "content-length" || n === "transfer-encoding");
        expect(stated).toHaveLength(1);
      }),
    );
  });
});

describe("Connection cannot remove framing or routing", () => {
  it("keeps Content-Length, Host and the proxy's framing when Connection lists them", () => {
    const headers = endToEndHeaders({ connection: "content-length, host, transfer-encoding, x-hop", "content-length": "5", host: "a", "x-hop": "1", accept: "*/*" });
    expect(headers).toEqual({ "content-length": "5", host: "a", accept: "*/*" });
  });

  it("keeps a response's Content-Length when its Connection lists it", () => {
    expect(endToEndRawHeaders(["Content-Length", "3", "Connection", "content-length, x-hop", "X-Hop", "1"])).toEqual(["Content-Length", "3"]);
  });
});

describe("request targets inside a tunnel", () => {
  it.each([
    ["/", null],
    ["/v1/items?x=1", null],
    ["/a//b", null],
    ["https://other-vhost/x", "origin-form"],
    ["http://other-vhost/x", "origin-form"],
    ["HTTPS://other-vhost", "origin-form"],
    ["other-vhost:443", "origin-form"],
    ["*", "origin-form"],
    ["//other-vhost/x", "authority"],
    ["", "origin-form"],
  ])("%j", (target, problem) => {
    const found = originFormProblem(target);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem === "authority" ? /another authority/ : /origin-form/);
  });
});

describe("upstream connection reuse", () => {
  const clean = { requestSent: true, answeredEarly: false, responseComplete: true, interrupted: false };
  it.each([
    ["a clean exchange", {}, true],
    ["an answer before the request was sent", { answeredEarly: true }, false],
    ["a request never fully sent", { requestSent: false }, false],
    ["an incomplete response", { responseComplete: false }, false],
    ["an interrupted exchange", { interrupted: true }, false],
  ])("%s → reusable %s", (_name, facts, reusable) => {
    expect(connectionReusable({ ...clean, ...facts })).toBe(reusable);
  });
});
