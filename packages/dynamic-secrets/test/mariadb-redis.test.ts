import { forEachStore, type TestWorld } from "@strongroom/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MARIADB_SERVER, mariadbServer, REDIS_SERVER, redisServer, withMysqlLogin, withRedisLogin } from "../src/testing.js";
import { dynamicWorld } from "./world.js";

/** MariaDB (client `mysql`, the alias of `mysql2`) and Redis dynamic secrets through the embedded API on every store. */
const maria = await mariadbServer();
const redis = await redisServer();

const mysqlLogin = (data: Record<string, string>) =>
  withMysqlLogin({ host: "127.0.0.1", port: MARIADB_SERVER.port, DB_USERNAME: data.DB_USERNAME!, DB_PASSWORD: data.DB_PASSWORD! }, "SELECT CURRENT_USER() AS me");
const redisLogin = (data: Record<string, string>, command = ["PING"]) =>
  withRedisLogin({ host: "127.0.0.1", port: REDIS_SERVER.port, DB_USERNAME: data.DB_USERNAME!, DB_PASSWORD: data.DB_PASSWORD! }, command);

forEachStore("MariaDB and Redis dynamic secrets", (store) => {
  let w: TestWorld;
  const where = () => ({ projectSlug: w.projectSlug, environmentSlug: "prod", path: "/" });
  beforeAll(async () => {
    w = await dynamicWorld(store);
  });
  afterAll(async () => w?.close());

  describe.skipIf(!maria.available)("MariaDB", () => {
    it("leases a user that logs in, and revokes it so the login fails", async () => {
      await w.sr.dynamicSecrets.create(w.admin, {
        ...where(),
        name: "maria",
        provider: { type: "sql-database", inputs: { client: "mysql", ...MARIADB_SERVER } },
        defaultTTL: "1h",
      });
      const { lease, data } = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "maria" });
      expect(await mysqlLogin(data)).toEqual([{ me: `${lease.externalEntityId}@%` }]);
      await w.sr.dynamicSecrets.revokeLease(w.admin, { ...where(), leaseId: lease.id });
      await expect(mysqlLogin(data)).rejects.toThrow(/Access denied/);
    });

    it("expires a lease without a renew statement through the scheduled job", async () => {
      const { data } = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "maria", ttl: "2m" });
      expect((await w.sr.dynamicSecrets.listLeases(w.admin, { ...where(), name: "maria" })).leases).toHaveLength(1);
      w.clock.advance(3 * 60_000);
      await w.sr.scheduler.runDue();
      await expect(mysqlLogin(data)).rejects.toThrow(/Access denied/);
      expect((await w.sr.dynamicSecrets.listLeases(w.admin, { ...where(), name: "maria" })).leases).toHaveLength(0);
    });
  });

  describe.skipIf(!redis.available)("Redis", () => {
    it("leases an ACL user that runs commands, expires it in the scheduled job, and renews within maxTTL", async () => {
      await w.sr.dynamicSecrets.create(w.admin, {
        ...where(),
        name: "cache",
        provider: { type: "redis", inputs: { host: "127.0.0.1", port: REDIS_SERVER.port, username: "default" } },
        defaultTTL: "10m",
        maxTTL: "30m",
      });
      const { lease, data } = await w.sr.dynamicSecrets.createLease(w.admin, { ...where(), dynamicSecretName: "cache" });
      expect(await redisLogin(data, ["ACL", "WHOAMI"])).toBe(lease.externalEntityId);
      await w.sr.dynamicSecrets.renewLease(w.admin, { ...where(), leaseId: lease.id, ttl: "15m" });
      await expect(w.sr.dynamicSecrets.renewLease(w.admin, { ...where(), leaseId: lease.id, ttl: "10m" })).rejects.toThrow("maxTTL");
      w.clock.advance(20 * 60_000);
      await w.sr.scheduler.runDue();
      expect(await redisLogin(data)).toBe("PONG");
      w.clock.advance(6 * 60_000);
      await w.sr.scheduler.runDue();
      await expect(redisLogin(data)).rejects.toThrow(/WRONGPASS/);
      expect((await w.sr.dynamicSecrets.getLease(w.admin, { ...where(), leaseId: lease.id })).lease.statusDetails).toBe("Revoked: expired");
    });
  });
});
