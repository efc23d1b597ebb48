import { describe, expect, it } from "vitest";
import { isTemporaryActive, temporaryAccessWindow } from "../../src/permissions/index.js";

const start = "2026-03-01T10:00:00.000Z";
const at = (iso: string) => new Date(iso);

describe("temporaryAccessWindow", () => {
  it.each([
    ["30m", "2026-03-01T10:30:00.000Z"],
    ["1h", "2026-03-01T11:00:00.000Z"],
    ["7d", "2026-03-08T10:00:00.000Z"],
  ])("%s from the start", (range, end) => {
    expect(temporaryAccessWindow({ start: at(start), range })?.toISOString()).toBe(end);
    expect(temporaryAccessWindow({ start, range })?.toISOString()).toBe(end);
  });

  it("is undefined for an invalid range or start", () => {
    expect(temporaryAccessWindow({ start, range: "forever" })).toBeUndefined();
    expect(temporaryAccessWindow({ start: "not a date", range: "1h" })).toBeUndefined();
  });
});

describe("isTemporaryActive", () => {
  const grant = { isTemporary: true, temporaryAccessStartTime: start, temporaryAccessEndTime: "2026-03-01T11:00:00.000Z" };

  it.each([
    ["before the start", "2026-03-01T09:59:59.999Z", false],
    ["at the start", "2026-03-01T10:00:00.000Z", true],
    ["inside the window", "2026-03-01T10:30:00.000Z", true],
    ["just before the end", "2026-03-01T10:59:59.999Z", true],
    ["at the end", "2026-03-01T11:00:00.000Z", false],
    ["after the end", "2026-03-02T00:00:00.000Z", false],
  ])("%s: %s", (_name, now, active) => {
    expect(isTemporaryActive(grant, at(now))).toBe(active);
  });

  it("accepts Date bounds", () => {
    const dated = { isTemporary: true, temporaryAccessStartTime: at(start), temporaryAccessEndTime: at("2026-03-01T11:00:00.000Z") };
    expect(isTemporaryActive(dated, at("2026-03-01T10:30:00.000Z"))).toBe(true);
  });

  it("keeps permanent grants active whatever their fields", () => {
    expect(isTemporaryActive({ isTemporary: false }, at("2100-01-01T00:00:00.000Z"))).toBe(true);
    expect(isTemporaryActive({ isTemporary: false, temporaryAccessEndTime: "2000-01-01T00:00:00.000Z" }, at(start))).toBe(true);
  });

  it.each([
    ["no end", { isTemporary: true, temporaryAccessStartTime: start, temporaryAccessEndTime: null }],
    ["no start", { isTemporary: true, temporaryAccessStartTime: null, temporaryAccessEndTime: "2026-03-01T11:00:00.000Z" }],
    ["an unreadable end", { isTemporary: true, temporaryAccessStartTime: start, temporaryAccessEndTime: "soon" }],
  ])("treats a temporary grant with %s as expired", (_name, broken) => {
    expect(isTemporaryActive(broken, at("2026-03-01T10:30:00.000Z"))).toBe(false);
  });
});
