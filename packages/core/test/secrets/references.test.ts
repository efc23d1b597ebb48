import { beforeEach, describe, expect, it } from "vitest";
import { at, secretsWorld, type SecretsWorld } from "./world.js";

describe("secret references (expandSecretReferences)", () => {
  let w: SecretsWorld;
  beforeEach(async () => {
    w = await secretsWorld();
    await w.sr.folders.create(w.admin, { projectId: w.projectId, environment: "prod", name: "db" });
    await w.sr.secrets.create(w.admin, { ...at(w, "prod", "/db"), secretName: "HOST", secretValue: "db.internal" });
    await w.sr.secrets.createMany(w.admin, {
      ...at(w),
      secrets: [
        { secretKey: "USER", secretValue: "app" },
        { secretKey: "URL", secretValue: "postgres://${USER}@${prod.db.HOST}/main" },
        { secretKey: "NESTED", secretValue: "<${URL}>" },
        { secretKey: "LOOP_A", secretValue: "a${LOOP_B}" },
        { secretKey: "LOOP_B", secretValue: "b${LOOP_A}" },
        { secretKey: "DANGLING", secretValue: "${NOPE} and ${prod.nowhere.X}" },
      ],
    });
  });

  const value = async (name: string, expand: boolean | "true", actor = w.admin) =>
    (await w.sr.secrets.get(actor, { ...at(w), secretName: name, expandSecretReferences: expand })).secret.secretValue;

  it("expands same-folder and cross-environment references, recursively, only when asked", async () => {
    expect(await value("URL", false)).toBe("postgres://${USER}@${prod.db.HOST}/main");
    expect(await value("URL", "true")).toBe("postgres://app@db.internal/main");
    expect(await value("NESTED", true)).toBe("<postgres://app@db.internal/main>");
    const { secrets } = await w.sr.secrets.list(w.admin, { ...at(w), expandSecretReferences: "true" });
    expect(secrets.find((s) => s.secretKey === "URL")!.secretValue).toBe("postgres://app@db.internal/main");
  });

  it("leaves loops and dangling references as written", async () => {
    expect(await value("LOOP_A", true)).toBe("ab${LOOP_A}");
    expect(await value("DANGLING", true)).toBe("${NOPE} and ${prod.nowhere.X}");
  });

  it("never reveals a value the caller may not read", async () => {
    const devOnly = await w.userWith([await w.role("dev-only", [{ subject: "secrets", action: "read", conditions: { environment: "dev" } }])]);
    expect(await value("URL", true, devOnly)).toBe("postgres://app@${prod.db.HOST}/main");
  });
});
