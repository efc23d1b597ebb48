import { describe, expect, it } from "vitest";
import { BadRequestError } from "../../src/kernel/errors.js";
import {
  credentialInputSchema,
  credentialsInputSchema,
  validateCredentials,
  type CredentialInput,
} from "../../src/entries/agent.js";

const bearer: CredentialInput = { headerName: "Authorization", headerPrefix: "Bearer", secretKey: "GITHUB_TOKEN" };
const username: CredentialInput = { role: "header-rewrite", headerPurpose: "username", secretKey: "DB_USER" };
const password: CredentialInput = { role: "header-rewrite", headerPurpose: "password", secretKey: "DB_PASS" };
const substitution: CredentialInput = {
  role: "credential-substitution",
  placeholderKey: "TWILIO_SID",
  placeholderValue: "__twilio_sid__",
  substitutionSurfaces: ["path", "query"],
  secretKey: "TWILIO_SID",
};

const problemsOf = (credentials: CredentialInput[]): string => {
  try {
    validateCredentials(credentials);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return (error as BadRequestError).message;
  }
  throw new Error("expected the credentials to be refused");
};

describe("validateCredentials accepts", () => {
  it("a header rewrite with a prefix, inferring the role and nulling the rest", () => {
    expect(validateCredentials([{ ...bearer, headerPrefix: " Bearer ", placeholderKey: null, substitutionSurfaces: [] }])).toEqual([
      {
        role: "header-rewrite",
        secretKey: "GITHUB_TOKEN",
        dynamicSecretName: null,
        dynamicSecretField: null,
        headerName: "Authorization",
        headerPrefix: "Bearer",
        headerPurpose: null,
        placeholderKey: null,
        placeholderValue: null,
        substitutionSurfaces: [],
      },
    ]);
  });

  it("a header rewrite without prefix from a dynamic secret", () => {
    const [definition] = validateCredentials([{ headerName: "X-Api-Key", dynamicSecretName: "db", dynamicSecretField: "token" }]);
    expect(definition).toMatchObject({ headerName: "X-Api-Key", headerPrefix: null, secretKey: null, dynamicSecretName: "db" });
  });

  it("Basic auth from a username and a password", () => {
    const definitions = validateCredentials([username, { ...password, headerName: "authorization" }]);
    expect(definitions.map((d) => [d.headerPurpose, d.headerName])).toEqual([
      ["username", null],
      ["password", null],
    ]);
  });

  it("substitution, inferring the role and deduplicating surfaces", () => {
    const { role: _role, ...withoutRole } = substitution;
    const [definition] = validateCredentials([{ ...withoutRole, substitutionSurfaces: ["body", "header", "body"] }]);
    expect(definition).toMatchObject({ role: "credential-substitution", substitutionSurfaces: ["body", "header"] });
  });

  it("several credentials on distinct headers and placeholders", () => {
    const list = [
      bearer,
      { headerName: "X-Org", secretKey: "ORG" },
      substitution,
      { ...substitution, placeholderKey: "TWILIO_TOKEN", placeholderValue: "__twilio_token__" },
    ];
    expect(validateCredentials(list)).toHaveLength(4);
  });
});

describe("validateCredentials refuses", () => {
  it.each<[string, CredentialInput[], RegExp]>([
    ["no value source", [{ headerName: "X-Key" }], /credentials\[0\]: needs a value source/],
    ["two value sources", [{ ...bearer, dynamicSecretName: "db", dynamicSecretField: "f" }], /credentials\[0\]: .*not both/],
    ["half a dynamic source", [{ headerName: "X-Key", dynamicSecretName: "db" }], /must be given together/],
    ["half a dynamic source, other half", [{ headerName: "X-Key", dynamicSecretField: "f" }], /must be given together/],
    ["a header rewrite without headerName", [{ role: "header-rewrite", secretKey: "K" }], /needs headerName/],
    ["an invalid header name", [{ headerName: "X Key", secretKey: "K" }], /not a valid HTTP header name/],
    ["a header name with a colon", [{ headerName: "X-Key:", secretKey: "K" }], /not a valid HTTP header name/],
    ["Host", [{ headerName: "Host", secretKey: "K" }], /reserved/],
    ["Proxy-Authorization", [{ headerName: "proxy-authorization", secretKey: "K" }], /reserved/],
    ["Connection", [{ headerName: "Connection", secretKey: "K" }], /reserved/],
    ["Transfer-Encoding", [{ headerName: "Transfer-Encoding", secretKey: "K" }], /reserved/],
    ["Content-Length", [{ headerName: "content-length", secretKey: "K" }], /reserved/],
    ["a prefix with a line break", [{ ...bearer, headerPrefix: "Bearer\r\nX-Evil: 1" }], /headerPrefix must be printable ASCII/],
    ["substitution fields on a header rewrite", [{ ...bearer, role: "header-rewrite", placeholderKey: "K" }], /placeholderKey does not apply to role header-rewrite/],
    ["header fields on a substitution", [{ ...substitution, headerName: "X-Key" }], /headerName does not apply to role credential-substitution/],
    ["a prefix on Basic auth", [{ ...username, headerPrefix: "Basic" }, password], /headerPrefix does not apply to Basic/],
    ["Basic auth aimed at another header", [{ ...username, headerName: "X-User" }, password], /always sets Authorization/],
    ["a username without password", [username], /credentials\[0\]: Basic auth needs a password/],
    ["a password without username", [bearer, password], /credentials\[1\]: Basic auth needs a username/],
    ["two usernames", [username, password, username], /credentials\[2\]: Basic auth takes one username/],
    ["the same header twice, in any case", [bearer, { headerName: "AUTHORIZATION", secretKey: "K" }], /credentials\[1\]: header AUTHORIZATION is already set by credentials\[0\]/],
    ["Basic auth next to an Authorization header", [bearer, username, password], /credentials\[1\]: header Authorization is already set by credentials\[0\]/],
    ["an Authorization header next to Basic auth", [username, password, bearer], /credentials\[2\]: header Authorization is already set by credentials\[0\]/],
    ["substitution without placeholderKey", [{ ...substitution, placeholderKey: null }], /needs placeholderKey/],
    ["substitution without placeholderValue", [{ ...substitution, placeholderValue: "" }], /needs placeholderValue/],
    ["substitution without surfaces", [{ ...substitution, substitutionSurfaces: [] }], /needs substitutionSurfaces/],
    ["a short placeholder", [{ ...substitution, placeholderValue: "__k__" }], /at least 8 characters/],
    ["a placeholder with characters that change between surfaces", [{ ...substitution, placeholderValue: "{{twilio sid}}" }], /placeholderValue must be/],
    ["a duplicate placeholderKey", [substitution, { ...substitution, placeholderValue: "__other_value__" }], /credentials\[1\]: placeholderKey "TWILIO_SID" is already used by credentials\[0\]/],
    ["a duplicate placeholderValue", [substitution, { ...substitution, placeholderKey: "OTHER" }], /credentials\[1\]: placeholderValue "__twilio_sid__" is already used/],
    ["placeholders that contain one another", [substitution, { ...substitution, placeholderKey: "OTHER", placeholderValue: "__twilio_sid__2" }], /contain one another/],
  ])("%s", (_name, credentials, message) => {
    expect(problemsOf(credentials)).toMatch(message);
  });

  it("lists every problem, each with its index, in one error carrying details", () => {
    let error: BadRequestError | undefined;
    try {
      validateCredentials([bearer, { headerName: "Host" }, { ...bearer }]);
    } catch (caught) {
      error = caught as BadRequestError;
    }
    expect(error?.message).toMatch(/^credentials\[1\]: .*; credentials\[1\]: .*; credentials\[2\]: header Authorization/);
    expect(error?.details).toMatchObject({ problems: expect.arrayContaining([expect.objectContaining({ index: 2 })]) });
  });
});

describe("credential input schema", () => {
  it("accepts the SPEC input fields, role, headerPurpose and nulls, and drops unknown fields", () => {
    const parsed = credentialInputSchema.parse({ ...bearer, headerPurpose: null, role: null, id: "x", serviceId: "y" });
    expect(parsed).toEqual({ ...bearer, headerPurpose: null, role: null });
  });

  it.each([
    ["an unknown role", { role: "basic" }],
    ["an unknown purpose", { headerPurpose: "token" }],
    ["an unknown surface", { substitutionSurfaces: ["cookie"] }],
    ["a non-string field", { secretKey: 42 }],
    ["an over-long field", { headerName: "x".repeat(256) }],
  ])("rejects %s", (_name, input) => {
    expect(credentialInputSchema.safeParse(input).success).toBe(false);
  });

  it("requires at least one credential per service", () => {
    expect(credentialsInputSchema.safeParse([]).success).toBe(false);
    expect(credentialsInputSchema.safeParse([bearer]).success).toBe(true);
  });
});
