import { describe, expect, it } from "vitest";
import { readAuditSinkSettings } from "../src/server/audit-sinks.js";

const SECRET = "0123456789abcdef-hook";

describe("the audit sink variables", () => {
  it("stream nowhere by default", () => {
    expect(readAuditSinkSettings({})).toEqual({ bufferEntries: 10_000 });
  });

  it("read a file sink with its rotation", () => {
    expect(readAuditSinkSettings({ STRONGROOM_AUDIT_FILE: "/var/log/sr/audit.log", STRONGROOM_AUDIT_FILE_MAX_BYTES: "1048576", STRONGROOM_AUDIT_FILE_KEEP: "3" })).toEqual({
      file: { path: "/var/log/sr/audit.log", maxBytes: 1_048_576, keep: 3 },
      bufferEntries: 10_000,
    });
  });

  it("read a webhook with its secret, CA and buffer", () => {
    expect(
      readAuditSinkSettings({
        STRONGROOM_AUDIT_WEBHOOK_URL: "https://siem.example/hook",
        STRONGROOM_AUDIT_WEBHOOK_SECRET: SECRET,
        STRONGROOM_WEBHOOK_CA: "/etc/ca.pem",
        STRONGROOM_AUDIT_SINK_BUFFER: "500",
      }),
    ).toEqual({ webhook: { url: "https://siem.example/hook", secret: SECRET, caFile: "/etc/ca.pem" }, bufferEntries: 500 });
  });

  it.each([
    [{ STRONGROOM_AUDIT_WEBHOOK_URL: "http://siem.example/hook", STRONGROOM_AUDIT_WEBHOOK_SECRET: SECRET }, /STRONGROOM_AUDIT_WEBHOOK_URL must be an https/],
    [{ STRONGROOM_AUDIT_WEBHOOK_URL: "https://siem.example/hook" }, /STRONGROOM_AUDIT_WEBHOOK_SECRET must be set/],
    [{ STRONGROOM_AUDIT_WEBHOOK_URL: "https://siem.example/hook", STRONGROOM_AUDIT_WEBHOOK_SECRET: "short" }, /at least 16/],
    [{ STRONGROOM_AUDIT_FILE: "a.log", STRONGROOM_AUDIT_FILE_MAX_BYTES: "lots" }, /STRONGROOM_AUDIT_FILE_MAX_BYTES must be a positive integer/],
    [{ STRONGROOM_AUDIT_SINK_BUFFER: "0" }, /STRONGROOM_AUDIT_SINK_BUFFER must be a positive integer/],
  ])("refuse %o", (env, message) => {
    expect(() => readAuditSinkSettings(env)).toThrow(message);
  });
});
