import { expect, it } from "vitest";
import { createMemoryStorage, createStrongroom, generateRootKey, ManualClock } from "@strongroom/core";

const DAY = 24 * 60 * 60 * 1000;

it("housekeeping deletes tokens that expired over a day ago and keeps live ones, once per hour", async () => {
  const clock = new ManualClock("2026-05-01T00:00:00Z");
  const strongroom = await createStrongroom({ storage: createMemoryStorage(), rootKey: generateRootKey(), clock });
  const anonymous = { type: "anonymous" } as const;
  const setup = await strongroom.admin.bootstrap(anonymous, { email: "a@example.com", password: "a long password", organization: "Tidy" });
  const login = () => strongroom.auth.login(anonymous, { email: "a@example.com", password: "a long password" });
  await login(); // a user token living one day
  const tokens = strongroom.context.storage.tables.accessTokens;
  expect(await tokens.count()).toBe(2);

  expect(await strongroom.scheduler.runDue()).toContain("housekeeping");
  expect(await tokens.count()).toBe(2);

  clock.advance(2 * DAY + 1000); // the user token expired over a day ago; the identity token lives 30 days
  await login();
  expect(await strongroom.scheduler.runDue()).toContain("housekeeping");
  expect(await tokens.count()).toBe(2);
  expect((await tokens.find()).every((t) => t.expiresAt > clock.now().toISOString())).toBe(true);
  // the identity token from bootstrap still authenticates
  expect((await strongroom.authenticate(setup.identity.credentials.token)).type).toBe("identity");

  // within the same hour nothing runs again
  expect(await strongroom.scheduler.runDue()).not.toContain("housekeeping");
  await strongroom.close();
});
