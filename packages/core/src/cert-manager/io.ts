import { defineService, type Context } from "../kernel/context.js";
import { nodeCertManagerPorts } from "./node/defaults.js";
import type { CertManagerPorts } from "./ports.js";

/** The ports one instance uses: the Node defaults, with whatever the assembly was handed instead. */
const instancePorts = defineService<{ ports: CertManagerPorts }>("cert-manager-ports", (ctx) => ({ ports: nodeCertManagerPorts(ctx.config) }));

/** Where alert e-mail, alert webhooks and discovery handshakes go on this instance. */
export const certManagerPorts = (ctx: Context): CertManagerPorts => ctx.service(instancePorts).ports;

/** At assembly, before any operation runs: replaces some of the Node defaults. */
export function useCertManagerPorts(ctx: Context, replacements: Partial<CertManagerPorts>): void {
  const held = ctx.service(instancePorts);
  held.ports = { ...held.ports, ...replacements };
}
