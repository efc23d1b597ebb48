import { describe, expect, it } from "vitest";
import { pacer, unpaced } from "../../src/kernel/pace.js";
import { parsePaced, SLICED_MIN_ITEMS, validateInput } from "../../src/kernel/sliced-input.js";
import { createSecretsInput, deleteSecretsInput, updateSecretsInput } from "../../src/secret-manager/secrets/schemas.js";

const N = SLICED_MIN_ITEMS + 44;
const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ secretKey: ` KEY_${i} `, secretValue: `v${i}`, secretPath: i % 2 ? "/a/b/" : undefined, extra: "stripped", secretMetadata: [{ key: "k" }] }));
const body = (over: Record<string, unknown> = {}) => ({ projectId: "p1", environment: "dev", secretPath: "/x", mode: "upsert", secrets: items(N), ...over });

/** Both parses of one input, the paced one with a budget of 0 ms so that it yields as often as it can. */
async function both(schema: Parameters<typeof parsePaced>[0], input: unknown) {
  const once = schema.safeParse(input);
  const paced = await parsePaced(schema, input, pacer(false, 0));
  return { once, paced };
}

describe("paced input parsing", () => {
  it("answers what one parse answers for a valid long batch", async () => {
    for (const schema of [createSecretsInput, updateSecretsInput, deleteSecretsInput]) {
      const { once, paced } = await both(schema, body());
      expect(once.success).toBe(true);
      expect(paced).toEqual(once);
    }
  });

  it("gives the one-call parse's issues, paths and messages when an item, the array or the rest is wrong", async () => {
    const bad = items(N);
    (bad[N - 3] as Record<string, unknown>).secretKey = "has space";
    (bad[7] as Record<string, unknown>).secretValue = 12;
    const inputs = [
      body({ secrets: bad }),
      body({ secrets: items(5_001) }),
      body({ projectId: undefined }),
      body({ projectId: undefined, secrets: bad }),
      body({ environment: "", mode: "sometimes" }),
      body({ secrets: "not a list" }),
    ];
    for (const input of inputs) {
      const { once, paced } = await both(updateSecretsInput, input);
      expect(once.success).toBe(false);
      expect(paced.success).toBe(false);
      expect(paced.error!.issues).toEqual(once.error!.issues);
    }
  });

  it("yields to other work between items of a long array, and never when unpaced", async () => {
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    const spin = () => new Promise<void>((resolve) => setImmediate(resolve));
    const counting = async (pace: Parameters<typeof parsePaced>[2]) => {
      let seen = 0;
      const watch = (async () => {
        for (let i = 0; i < 1000; i++) await spin();
      })();
      const start = turns;
      await parsePaced(updateSecretsInput, body({ secrets: items(2_000) }), pace);
      seen = turns - start;
      await watch;
      return seen;
    };
    try {
      expect(await counting(pacer(false, 0))).toBeGreaterThan(0);
      expect(await counting(unpaced)).toBe(0);
    } finally {
      clearInterval(tick);
    }
  });

  it("validates short inputs and any input in a transaction in one call, as zod does; long ones paced to the same answer", async () => {
    const short = body({ secrets: items(3) });
    const once = validateInput(updateSecretsInput, short, false);
    expect(once).not.toBeInstanceOf(Promise);
    expect(once).toEqual(updateSecretsInput.safeParse(short));
    const long = body();
    const inTransaction = validateInput(updateSecretsInput, long, true);
    expect(inTransaction).not.toBeInstanceOf(Promise);
    const paced = validateInput(updateSecretsInput, long, false);
    expect(paced).toBeInstanceOf(Promise);
    expect(await paced).toEqual(inTransaction);
  });
});
