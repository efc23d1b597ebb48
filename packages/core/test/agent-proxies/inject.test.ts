import { describe, expect, it } from "vitest";
import {
  applyCredentials,
  CredentialInjectionError,
  type InjectableCredential,
  type ProxiedRequest,
  type ResolvedCredential,
  type SubstitutionSurface,
} from "../../src/entries/agent.js";

const PLACEHOLDER = "__api_key__";

const request = (overrides: Partial<ProxiedRequest> = {}): ProxiedRequest => ({
  headers: { host: "api.example.com", accept: "application/json" },
  path: "/v1/items",
  query: "",
  body: "",
  contentType: null,
  ...overrides,
});

const header = (headerName: string, headerPrefix: string | null = null): InjectableCredential => ({
  role: "header-rewrite",
  headerName,
  headerPrefix,
  headerPurpose: null,
  placeholderValue: null,
  substitutionSurfaces: [],
});

const basicHalf = (headerPurpose: "username" | "password"): InjectableCredential => ({
  ...header("Authorization"),
  headerName: null,
  headerPurpose,
});

const substitution = (surfaces: SubstitutionSurface[], placeholderValue = PLACEHOLDER): InjectableCredential => ({
  role: "credential-substitution",
  headerName: null,
  headerPrefix: null,
  headerPurpose: null,
  placeholderValue,
  substitutionSurfaces: surfaces,
});

const resolved = (credential: InjectableCredential, value: string): ResolvedCredential => ({ credential, value });

describe("applyCredentials: header rewrite", () => {
  it("sets prefix, a space and the value, replacing the header in any case", () => {
    const result = applyCredentials(request({ headers: { authorization: "Bearer fake", AUTHORIZATION: "x", accept: "*/*" } }), [
      resolved(header("Authorization", "Bearer"), "ghp_real"),
    ]);
    expect(result.headers).toEqual({ accept: "*/*", Authorization: "Bearer ghp_real" });
  });

  it("sets the bare value without a prefix", () => {
    const result = applyCredentials(request(), [resolved(header("X-Api-Key"), "k-123")]);
    expect(result.headers["X-Api-Key"]).toBe("k-123");
  });

  it("combines username and password into one Basic Authorization", () => {
    const result = applyCredentials(request({ headers: { Authorization: "Basic placeholder" } }), [
      resolved(basicHalf("password"), "pä:ss"),
      resolved(basicHalf("username"), "alice"),
    ]);
    expect(result.headers).toEqual({ Authorization: `Basic ${Buffer.from("alice:pä:ss", "utf8").toString("base64")}` });
  });

  it("does not mutate the request it was given", () => {
    const original = request({ headers: { authorization: "fake" } });
    applyCredentials(original, [resolved(header("Authorization"), "real")]);
    expect(original.headers).toEqual({ authorization: "fake" });
  });

  it.each([
    ["CR LF", "tok\r\nX-Evil: 1"],
    ["LF", "tok\n"],
    ["CR", "tok\r"],
    ["NUL", "tok\0"],
  ])("refuses a header value with %s and never echoes the value", (_name, value) => {
    const attempt = () => applyCredentials(request(), [resolved({ ...header("X-Api-Key"), id: "cred-1" }, value)]);
    expect(attempt).toThrow(CredentialInjectionError);
    expect(attempt).toThrow(/credential cred-1: .*CR, LF/);
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain("tok");
    }
  });

  it("gives every request its own result when one resolved list serves many, and refuses a bad list every time", () => {
    const list = [resolved(header("Authorization", "Bearer"), "ghp_real")];
    const first = applyCredentials(request({ headers: { authorization: "fake", accept: "*/*" } }), list);
    const second = applyCredentials(request({ headers: { "x-other": "1" } }), list);
    expect(first.headers).toEqual({ accept: "*/*", Authorization: "Bearer ghp_real" });
    expect(second.headers).toEqual({ "x-other": "1", Authorization: "Bearer ghp_real" });
    const bad = [resolved(header("X-Api-Key"), "tok\r\n")];
    expect(() => applyCredentials(request(), bad)).toThrow(CredentialInjectionError);
    expect(() => applyCredentials(request(), bad)).toThrow(CredentialInjectionError);
  });

  it("refuses CR/LF in a Basic auth half too", () => {
    expect(() =>
      applyCredentials(request(), [resolved(basicHalf("username"), "alice"), resolved(basicHalf("password"), "secret\n")]),
    ).toThrow(CredentialInjectionError);
  });

  it("refuses half of Basic auth, a colon in the username, and reserved header names", () => {
    expect(() => applyCredentials(request(), [resolved(basicHalf("username"), "alice")])).toThrow(/password is missing/);
    expect(() =>
      applyCredentials(request(), [resolved(basicHalf("username"), "a:b"), resolved(basicHalf("password"), "p")]),
    ).toThrow(/cannot contain ':'/);
    expect(() => applyCredentials(request(), [resolved(header("Host"), "evil")])).toThrow(/reserved/);
  });
});

describe("applyCredentials: substitution", () => {
  const value = 'a b/c?d&e="f"\\g+é';

  it.each<[SubstitutionSurface, Partial<ProxiedRequest>, (r: ProxiedRequest) => unknown, unknown]>([
    ["header", { headers: { "x-token": `Token ${PLACEHOLDER}` } }, (r) => r.headers["x-token"], `Token ${value}`],
    ["path", { path: `/accounts/${PLACEHOLDER}/messages` }, (r) => r.path, `/accounts/${encodeURIComponent(value)}/messages`],
    ["query", { query: `key=${PLACEHOLDER}&x=1` }, (r) => r.query, `key=${encodeURIComponent(value)}&x=1`],
    [
      "body",
      { body: `{"key":"${PLACEHOLDER}"}`, contentType: "application/json; charset=utf-8" },
      (r) => JSON.parse(r.body as string).key,
      value,
    ],
    [
      "body",
      { body: `{"key":"${PLACEHOLDER}"}`, contentType: "application/vnd.api+json" },
      (r) => JSON.parse(r.body as string).key,
      value,
    ],
    [
      "body",
      { body: `key=${PLACEHOLDER}&x=1`, contentType: "application/x-www-form-urlencoded" },
      (r) => new URLSearchParams(r.body as string).get("key"),
      value,
    ],
    ["body", { body: `key: ${PLACEHOLDER}`, contentType: "text/plain" }, (r) => r.body, `key: ${value}`],
  ])("encodes the value for the %s surface (%j)", (surface, overrides, read, expected) => {
    const result = applyCredentials(request(overrides), [resolved(substitution([surface]), value)]);
    expect(read(result as ProxiedRequest)).toEqual(expected);
  });

  it("keeps a substituted path value inside its segment", () => {
    const result = applyCredentials(request({ path: `/files/${PLACEHOLDER}/raw` }), [resolved(substitution(["path"]), "../admin")]);
    expect(result.path).toBe("/files/..%2Fadmin/raw");
    const dots = applyCredentials(request({ path: `/files/${PLACEHOLDER}/raw` }), [resolved(substitution(["path"]), "..")]);
    expect(dots.path).toBe("/files/%2E%2E/raw");
  });

  it("replaces only on the declared surfaces", () => {
    const result = applyCredentials(
      request({ headers: { "x-k": PLACEHOLDER }, path: `/${PLACEHOLDER}`, query: `k=${PLACEHOLDER}`, body: PLACEHOLDER }),
      [resolved(substitution(["query"]), "real")],
    );
    expect(result).toMatchObject({ headers: { "x-k": PLACEHOLDER }, path: `/${PLACEHOLDER}`, query: "k=real", body: PLACEHOLDER });
  });

  it.each(["Host", "Content-Length", "Transfer-Encoding", "Connection", "Forwarded", "X-Forwarded-Host", "X-Original-Host"])(
    "never substitutes into %s, which frames or routes the request",
    (name) => {
      const headers = { [name]: `a-${PLACEHOLDER}`, "x-k": PLACEHOLDER };
      const result = applyCredentials(request({ headers }), [resolved(substitution(["header"]), "real-value")]);
      expect(result.headers[name]).toBe(`a-${PLACEHOLDER}`);
      expect(result.headers["x-k"]).toBe("real-value");
    },
  );

  it("replaces every occurrence, in header arrays too, and inserts '$&' literally", () => {
    const result = applyCredentials(request({ headers: { cookie: [`a=${PLACEHOLDER}`, `b=${PLACEHOLDER}`] } }), [
      resolved(substitution(["header"]), "$&$1"),
    ]);
    expect(result.headers.cookie).toEqual(["a=$&$1", "b=$&$1"]);
  });

  it("substitutes in Buffer bodies byte-exactly and returns a Buffer", () => {
    const body = Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from(PLACEHOLDER), Buffer.from([0x80])]);
    const result = applyCredentials(request({ body, contentType: "application/octet-stream" }), [resolved(substitution(["body"]), "é")]);
    expect(Buffer.isBuffer(result.body)).toBe(true);
    expect(result.body).toEqual(Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from("é", "utf8"), Buffer.from([0x80])]));
  });

  it("JSON-escapes into Buffer JSON bodies", () => {
    const body = Buffer.from(`{"k":"${PLACEHOLDER}"}`);
    const result = applyCredentials(request({ body, contentType: "application/json" }), [resolved(substitution(["body"]), 'q"\n')]);
    expect(JSON.parse((result.body as Buffer).toString("utf8"))).toEqual({ k: 'q"\n' });
  });

  it("updates Content-Length when the body changes, and only then", () => {
    const changed = applyCredentials(request({ headers: { "Content-Length": "11" }, body: PLACEHOLDER }), [
      resolved(substitution(["body"]), "é"),
    ]);
    expect(changed.headers["Content-Length"]).toBe("2");
    const unchanged = applyCredentials(request({ headers: { "content-length": "3" }, body: "abc" }), [resolved(substitution(["body"]), "é")]);
    expect(unchanged.headers["content-length"]).toBe("3");
  });

  it("never scans an inserted secret for other placeholders", () => {
    const other = "__other_key__";
    const result = applyCredentials(request({ query: `a=${PLACEHOLDER}&b=${other}` }), [
      resolved(substitution(["query"]), other),
      resolved(substitution(["query"], other), "second"),
    ]);
    expect(result.query).toBe(`a=${other}&b=second`);
  });

  it("refuses CR/LF for a header surface but allows it where it is encoded", () => {
    expect(() => applyCredentials(request(), [resolved(substitution(["header", "body"]), "x\r\ny")])).toThrow(CredentialInjectionError);
    const result = applyCredentials(request({ query: `k=${PLACEHOLDER}` }), [resolved(substitution(["query"]), "x\r\ny")]);
    expect(result.query).toBe("k=x%0D%0Ay");
  });

  it("is all-or-nothing: a refused credential leaves no partial result", () => {
    expect(() =>
      applyCredentials(request(), [resolved(header("X-Good"), "fine"), resolved(header("X-Bad"), "bad\n")]),
    ).toThrow(CredentialInjectionError);
  });
});
