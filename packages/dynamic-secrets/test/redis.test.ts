import type { ProviderTarget } from "@strongroom/core";
import { describe, expect, it } from "vitest";
import { redisInputs, redisProvider } from "../src/index.js";
import { REDIS_SERVER, redisServer, withRedisLogin } from "../src/testing.js";

const target: ProviderTarget = { address: "127.0.0.1", port: REDIS_SERVER.port, host: "127.0.0.1" };
const inHour = () => new Date(Date.now() + 3600_000);
const root = { ...REDIS_SERVER, DB_USERNAME: "default", DB_PASSWORD: "" };
const leasedUsers = async () => ((await withRedisLogin(root, ["ACL", "USERS"])) as string[]).filter((u) => u.startsWith("sr")).length;

describe("redis", async () => {
  const server = await redisServer();
  const inputs = redisInputs.parse({ host: "127.0.0.1", port: REDIS_SERVER.port });
  const call = { inputs, target };

  it("inputs default to the default user and Infisical's ACL statements", () => {
    expect(inputs).toMatchObject({ username: "default", creationStatement: "ACL SETUSER {{username}} on >{{password}} ~* &* +@all" });
    expect(redisInputs.safeParse({ host: "h", revocationStatement: "ACL DELUSER {{password}}" }).success).toBe(false);
  });

  it.skipIf(!server.available)("validates a root user that manages ACL users", async () => {
    await expect(redisProvider.validate(call)).resolves.toBeUndefined();
  });

  it.skipIf(!server.available)("leases an ACL user that logs in and runs commands, and revokes it so the login fails", async () => {
    const lease = await redisProvider.create(call, inHour());
    const login = { host: REDIS_SERVER.host, port: REDIS_SERVER.port, DB_USERNAME: lease.data.DB_USERNAME!, DB_PASSWORD: lease.data.DB_PASSWORD! };
    expect(await withRedisLogin(login, ["SET", `dynsec:${lease.entityId}`, "1", "EX", "60"])).toBe("OK");
    expect(await withRedisLogin(login, ["ACL", "WHOAMI"])).toBe(lease.entityId);
    await redisProvider.revoke(call, lease.entityId);
    await expect(withRedisLogin(login, ["PING"])).rejects.toThrow(/WRONGPASS/);
  });

  it.skipIf(!server.available)("leaves no user behind when a creation command fails inside the transaction", async () => {
    const before = await leasedUsers();
    const failing = { ...inputs, creationStatement: `${inputs.creationStatement}; ACL SETUSER {{username}} +nosuchcommand` };
    await expect(redisProvider.create({ inputs: failing, target }, inHour())).rejects.toThrow(/^Could not create the user: .*nosuchcommand/i);
    expect(await leasedUsers()).toBe(before);
  });

  it.skipIf(!server.available)("refuses a root user that may not manage ACL users", async () => {
    await withRedisLogin(root, ["ACL", "SETUSER", "srweakroot", "on", ">weak-password-1", "~*", "+ping"]);
    try {
      const weak = { ...inputs, username: "srweakroot", password: "weak-password-1" };
      await expect(redisProvider.validate({ inputs: weak, target })).rejects.toThrow("user 'srweakroot' may not manage ACL users");
    } finally {
      await withRedisLogin(root, ["ACL", "DELUSER", "srweakroot"]);
    }
  });

  it.skipIf(!server.available)("says when the server does not answer", async () => {
    await expect(redisProvider.validate({ inputs, target: { ...target, port: 1 } })).rejects.toThrow(/^Could not connect to Redis at 127\.0\.0\.1:6379: .*ECONNREFUSED/);
  });
});
