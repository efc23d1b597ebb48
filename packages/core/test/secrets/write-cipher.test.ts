import { describe, expect, it } from "vitest";
import { writeCipher, type ProjectCipher } from "../../src/secret-manager/cipher.js";

/** A cipher whose blind index is the name reversed, counting how often it computes one. */
function countingCipher() {
  const computed: string[] = [];
  const blindIndex = (name: string) => (computed.push(name), [...name].reverse().join(""));
  const cipher: ProjectCipher = {
    seal: () => "sealed",
    open: () => "opened",
    sealParts: () => ({ iv: "", tag: "", ciphertext: "" }),
    blindIndex,
    storedIndexes: (names, current = names.map(blindIndex)) => [...current, ...names.map((n) => `old:${n}`)],
    current: (rows) => rows,
  };
  return { cipher, computed };
}

describe("the cipher of one write", () => {
  it("computes each name's blind index once however many names the write has", () => {
    const { cipher, computed } = countingCipher();
    const write = writeCipher(cipher);
    const names = Array.from({ length: 6_000 }, (_, i) => `NAME_${i}`);
    for (const name of names) expect(write.blindIndex(name)).toBe(cipher.blindIndex(name));
    computed.length = 0;
    for (const name of names) write.blindIndex(name);
    expect(computed).toEqual([]);
    // Stored indexes: the remembered current ones, and whatever else the project's cipher adds.
    expect(write.storedIndexes(["AB", "NAME_1"])).toEqual(["BA", "1_EMAN", "old:AB", "old:NAME_1"]);
    expect(computed).toEqual(["AB"]);
  });

  it("leaves sealing and opening to the project's cipher", () => {
    const { cipher } = countingCipher();
    const write = writeCipher(cipher);
    expect(write.seal("x", "id")).toBe("sealed");
    expect(write.open("x", "id")).toBe("opened");
  });
});
