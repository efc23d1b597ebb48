import { describe, expect, it } from "vitest";
import { parsedQueryInput, queryInput } from "../src/input.js";

/** What the adapter answered before it split queries itself: URLSearchParams, key by key. */
const reference = (keys: readonly string[], search: string) => parsedQueryInput(keys, search, {});

const keys = ["projectId", "environment", "secretPath", "tag", "a b", "é", "empty"];

describe("query input", () => {
  it.each([
    "projectId=p1&environment=prod&secretPath=%2F",
    "secretPath=/a/b&secretPath=%2Fc&tag=x&tag=y&tag=z",
    "a+b=1&a%20b=2&%C3%A9=%E2%82%AC+sign",
    "empty&empty=&&&environment==x=y",
    "environment=bad%2&tag=%ZZ&tag=ok",
    "environment=%C3%28&projectId=p",
    "%zz=1&projectId=p",
    "projectId=p+q%2Bplus&unknown=%",
    "é=direct&environment=caf\u00e9",
    "&=novalue&=",
  ])("splits %j as URLSearchParams does", (search) => {
    const got = queryInput(keys, search);
    expect(got).toEqual(reference(keys, search));
    expect(Object.keys(got)).toEqual(Object.keys(reference(keys, search)));
  });
});
