import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generatePassword, generateUsername } from "../src/index.js";
import { passwordRequirementsSchema, SAFE_SYMBOLS } from "../src/credentials.js";

const count = (text: string, pattern: RegExp) => [...text].filter((c) => pattern.test(c)).length;

describe("generated credentials", () => {
  it("usernames are 32 lower-case letters and digits and do not repeat", () => {
    const names = new Set(Array.from({ length: 200 }, generateUsername));
    expect(names.size).toBe(200);
    for (const name of names) expect(name).toMatch(/^sr[a-z0-9]{30}$/);
  });

  it("default passwords are 48 letters and digits with every kind present, and do not repeat", () => {
    const passwords = new Set(Array.from({ length: 200 }, () => generatePassword()));
    expect(passwords.size).toBe(200);
    for (const password of passwords) {
      expect(password).toMatch(/^[A-Za-z0-9]{48}$/);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/[0-9]/);
    }
  });

  it("meet any valid requirements and hold nothing that could end a literal", () => {
    const requirements = fc
      .record({
        length: fc.integer({ min: 12, max: 128 }),
        required: fc.record({
          minUppercase: fc.integer({ min: 0, max: 5 }),
          minLowercase: fc.integer({ min: 0, max: 5 }),
          minDigits: fc.integer({ min: 0, max: 5 }),
          minSymbols: fc.integer({ min: 0, max: 5 }),
        }),
        allowedSymbols: fc.subarray([...SAFE_SYMBOLS], { minLength: 1 }).map((s) => s.join("")),
      })
      .filter((r) => passwordRequirementsSchema.safeParse(r).success);
    fc.assert(
      fc.property(requirements, (r) => {
        const password = generatePassword(passwordRequirementsSchema.parse(r));
        expect(password).toHaveLength(r.length);
        expect(count(password, /[A-Z]/)).toBeGreaterThanOrEqual(r.required.minUppercase);
        expect(count(password, /[a-z]/)).toBeGreaterThanOrEqual(r.required.minLowercase);
        expect(count(password, /[0-9]/)).toBeGreaterThanOrEqual(r.required.minDigits);
        expect(count(password, /[^A-Za-z0-9]/)).toBeGreaterThanOrEqual(r.required.minSymbols);
        for (const c of password) expect(/[A-Za-z0-9]/.test(c) || r.allowedSymbols.includes(c)).toBe(true);
        expect(password).not.toMatch(/['"`\\;\s{}]/);
      }),
    );
  });

  it.each([
    ["quotes in allowedSymbols", { length: 20, required: {}, allowedSymbols: "'" }],
    ["required characters beyond the length", { length: 12, required: { minDigits: 10, minUppercase: 5 } }],
    ["too short", { length: 8, required: {} }],
  ])("refuses %s", (_name, requirements) => {
    expect(passwordRequirementsSchema.safeParse(requirements).success).toBe(false);
  });
});
