import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

it("serves the API and the host's own routes from one node:http server", async () => {
  const script = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script], { env: { ...process.env, PORT: "0" } });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
        const found = /listening on (http:\/\/\S+)/.exec(out);
        if (found) resolve(found[1]);
      });
      child.once("exit", (code) => reject(new Error(`exited with ${code}`)));
    });
    expect(await (await fetch(`${url}/`)).text()).toBe("hello from the host application\n");
    const status = await fetch(`${url}/api/status`);
    expect(await status.json()).toEqual({ status: "ok" });
    const setup = await fetch(`${url}/api/v1/admin/bootstrap`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "host@example.com", password: "a long password", organization: "Host" }),
    });
    expect(setup.status).toBe(200);
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
});
