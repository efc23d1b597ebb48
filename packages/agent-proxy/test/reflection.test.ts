import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BrokerDecision } from "../src/control/control-plane.js";
import { base64Runs, FormAutomaton, injectedValues, MIN_FORM_BYTES, reflectionForms, Scrubber, scrubText } from "../src/brokering/reflection.js";

type Credentials = BrokerDecision["credentials"];

const credential = (overrides: Partial<Credentials[number]["credential"]>, value: string): Credentials[number] => ({
  credential: {
    id: "c",
    serviceId: "s",
    role: "header-rewrite",
    headerName: "Authorization",
    headerPrefix: "Bearer",
    headerPurpose: null,
    placeholderKey: null,
    placeholderValue: null,
    substitutionSurfaces: [],
    secretKey: "K",
    dynamicSecretName: null,
    dynamicSecretField: null,
    ...overrides,
  } as Credentials[number]["credential"],
  value,
});

/** Scrubs `input` fed in the given chunk sizes and returns what the agent would receive. */
function scrubInChunks(forms: Buffer[], input: Buffer, sizes: number[]): { output: Buffer; maxHeld: number } {
  const scrubber = new Scrubber(forms);
  const parts: Buffer[] = [];
  let at = 0;
  let maxHeld = 0;
  for (let i = 0; at < input.length; i++) {
    const size = Math.max(1, sizes[i % Math.max(1, sizes.length)] ?? input.length);
    parts.push(scrubber.push(input.subarray(at, at + size)));
    maxHeld = Math.max(maxHeld, scrubber.heldBytes);
    at += size;
  }
  parts.push(scrubber.end());
  return { output: Buffer.concat(parts), maxHeld };
}

const tryDecode = (decode: () => string): string | null => {
  try {
    return decode();
  } catch {
    return null;
  }
};

/** How an echoing upstream may wrap the whole request it got, and how the agent would unwrap it. */
const WRAPPINGS: Record<string, { wrap: (text: string) => Buffer; unwrap: (bytes: Buffer) => string | null }> = {
  raw: { wrap: (t) => Buffer.from(t, "utf8"), unwrap: (b) => b.toString("utf8") },
  base64: { wrap: (t) => Buffer.from(Buffer.from(t, "utf8").toString("base64")), unwrap: (b) => Buffer.from(b.toString("latin1").replaceAll("*", ""), "base64").toString("utf8") },
  base64url: { wrap: (t) => Buffer.from(Buffer.from(t, "utf8").toString("base64url")), unwrap: (b) => Buffer.from(b.toString("latin1").replaceAll("*", ""), "base64url").toString("utf8") },
  json: { wrap: (t) => Buffer.from(JSON.stringify({ echo: t })), unwrap: (b) => tryDecode(() => JSON.parse(b.toString("utf8")).echo) },
  asciiJson: {
    wrap: (t) => Buffer.from(JSON.stringify({ echo: t }).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)),
    unwrap: (b) => tryDecode(() => JSON.parse(b.toString("latin1")).echo),
  },
  percent: { wrap: (t) => Buffer.from(encodeURIComponent(t)), unwrap: (b) => tryDecode(() => decodeURIComponent(b.toString("latin1"))) },
  form: { wrap: (t) => Buffer.from(new URLSearchParams({ echo: t }).toString()), unwrap: (b) => new URLSearchParams(b.toString("latin1")).get("echo") },
  base64OfPercent: {
    wrap: (t) => Buffer.from(Buffer.from(encodeURIComponent(t)).toString("base64")),
    unwrap: (b) => tryDecode(() => decodeURIComponent(Buffer.from(b.toString("latin1").replaceAll("*", ""), "base64").toString("latin1"))),
  },
  latin1Header: { wrap: (t) => Buffer.from(t, "latin1"), unwrap: (b) => b.toString("latin1") },
};

describe("what is scrubbed", () => {
  it("takes the header value, the substituted value, and Basic's password and pair, not its user name", () => {
    const values = injectedValues([
      credential({}, "token-value-1"),
      credential({ role: "credential-substitution", headerName: null, headerPrefix: null, placeholderValue: "__PH__", substitutionSurfaces: ["body"] }, "sub-value-2"),
      credential({ headerName: null, headerPrefix: null, headerPurpose: "username" }, "alice"),
      credential({ headerName: null, headerPrefix: null, headerPurpose: "password" }, "pa55word"),
    ]);
    expect(values).toEqual(["token-value-1", "sub-value-2", "pa55word", "alice:pa55word", Buffer.from("alice:pa55word").toString("base64")]);
  });

  it("covers the value inside longer base64 at every alignment", () => {
    const value = Buffer.from("s3cr3t-value");
    for (let offset = 0; offset < 3; offset++) {
      const encoded = Buffer.concat([Buffer.alloc(offset, 0x41), value, Buffer.from("zz")]).toString("base64");
      expect(base64Runs(value).some((run) => encoded.includes(run))).toBe(true);
    }
  });

  it("skips forms too short to scrub without garbling answers", () => {
    expect(reflectionForms([credential({}, "abc")])).toEqual([]);
    expect(reflectionForms([credential({}, "abcd")]).every((form) => form.length >= MIN_FORM_BYTES)).toBe(true);
  });

  it("masks header text byte for byte", () => {
    const automaton = new FormAutomaton(reflectionForms([credential({}, "tok-123456")]));
    expect(scrubText("Bearer tok-123456, again tok-123456", automaton)).toBe("Bearer **********, again **********");
    expect(scrubText("nothing here", automaton)).toBe("nothing here");
  });
});

describe("the streaming scrubber", () => {
  it("holds back only a tail that could start a form, so a streamed event passes at once", () => {
    const scrubber = new Scrubber(reflectionForms([credential({}, "secret-value-9")]));
    expect(scrubber.push(Buffer.from("data: hello\n\n")).toString()).toBe("data: hello\n\n");
    expect(scrubber.push(Buffer.from("data: secr")).toString()).toBe("data: ");
    expect(scrubber.push(Buffer.from("et-value-9 and more\n\n")).toString()).toBe("************** and more\n\n");
    expect(scrubber.end()).toHaveLength(0);
  });

  it("never lets an injected value through, in any wrapping and any chunking (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40, unit: "grapheme" }),
        fc.string({ maxLength: 30 }),
        fc.string({ maxLength: 30 }),
        fc.constantFrom(...Object.keys(WRAPPINGS)),
        fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 8 }),
        (value, before, after, wrapping, sizes) => {
          const forms = reflectionForms([credential({}, value)]);
          const { wrap, unwrap } = WRAPPINGS[wrapping]!;
          const input = wrap(before + value + after);
          const { output, maxHeld } = scrubInChunks(forms, input, sizes);
          expect(output.length).toBe(input.length);
          for (const form of forms) expect(output.includes(form)).toBe(false);
          expect(unwrap(output) ?? "").not.toContain(value);
          expect(maxHeld).toBeLessThan(forms[0]!.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("changes nothing when no form occurs (property)", () => {
    const forms = reflectionForms([credential({}, "Zq9-unlikely-value")]);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1 }), (bytes, sizes) => {
        const input = Buffer.from(bytes);
        fc.pre(!forms.some((form) => input.includes(form)));
        expect(scrubInChunks(forms, input, sizes).output.equals(input)).toBe(true);
      }),
    );
  });
});
