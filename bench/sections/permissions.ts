/**
 * Permission checks per second: our compiled rules against CASL's `createMongoAbility` on the
 * same rules and the same concrete-object checks, both built once as on a request's hot path.
 */
import { can, compileRules, mergeRuleSources, type PermissionRule } from "../../packages/core/src/permissions/index.js";
import { caslAbility, caslCan, caslObject } from "../../packages/core/test/permissions/support/casl-reference.js";
import type { BenchOptions, BenchRow, BenchSection } from "../types.js";

const EVENTS = ["subscribe-on-created", "subscribe-on-updated", "subscribe-on-deleted", "subscribe-on-import-mutations"];

/** A custom "backend developer" role as a project would write it. */
const role: PermissionRule[] = [
  { subject: "secrets", action: ["read", "create", "edit", "delete"], conditions: { environment: "dev", secretPath: { $glob: "/**" } } },
  { subject: "secrets", action: ["read", "create", "edit"], conditions: { environment: "staging", secretPath: { $glob: "/apps/**" } } },
  { subject: "secrets", action: "describeSecret", conditions: { environment: "prod" } },
  {
    subject: "secrets",
    action: "readValue",
    conditions: { environment: "prod", secretPath: { $glob: "/apps/web/**" }, secretTags: { $in: ["public", "web"] } },
  },
  { subject: "secrets", action: "read", conditions: { environment: "prod", secretTags: { $all: ["oncall", "backend"] } } },
  { subject: "secrets", action: "edit", conditions: { environment: "prod", secretPath: "/apps/api", secretName: { $glob: "FEATURE_*" } } },
  { subject: "secrets", action: ["edit", "delete"], inverted: true, conditions: { secretTags: { $in: ["locked", "compliance"] } } },
  { subject: "secrets", action: "readValue", inverted: true, conditions: { secretName: { $glob: "*_PRIVATE_KEY" } } },
  { subject: "secret-folders", action: "read", conditions: { environment: { $in: ["dev", "staging", "prod"] } } },
  { subject: "secret-folders", action: ["create", "edit", "delete"], conditions: { environment: { $ne: "prod" }, secretPath: { $glob: "/apps/*" } } },
  { subject: "secret-imports", action: "read", conditions: { environment: { $in: ["dev", "staging"] } } },
  { subject: "secret-imports", action: ["create", "edit"], conditions: { environment: "dev" } },
  { subject: "secret-events", action: EVENTS, conditions: { environment: { $in: ["dev", "staging"] }, secretPath: { $glob: "/apps/**" } } },
  { subject: "secret-events", action: "subscribe-on-updated", conditions: { environment: "prod", secretPath: { $glob: "/apps/web/**" } } },
  { subject: "environments", action: "read" },
  { subject: "tags", action: "read" },
  { subject: "role", action: "read" },
  { subject: "member", action: "read" },
];

/** Additional privileges of the identity, appended after its role. */
const privileges: PermissionRule[][] = [
  [{ subject: "secrets", action: ["read", "edit"], conditions: { environment: "prod", secretPath: { $glob: "/apps/payments/**" } } }],
  [{ subject: "secrets", action: "delete", inverted: true, conditions: { environment: "prod" } }],
  [{ subject: "secrets", action: "readValue", conditions: { environment: "prod", secretName: { $in: ["SENTRY_DSN", "STRIPE_PUBLIC_KEY"] } } }],
];

const rules = mergeRuleSources({ roles: [role], privileges });

interface Check {
  action: string;
  subject: string;
  object: Record<string, unknown>;
}

/** Deterministic pseudo-random choices, so every run measures the same checks. */
function chooser(seed: number) {
  let state = seed >>> 0;
  return <T>(items: readonly T[]): T => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return items[state % items.length];
  };
}

function workload(count: number): Check[] {
  const pick = chooser(42);
  const paths = ["/", "/apps", "/apps/web", "/apps/web/assets", "/apps/api", "/apps/payments/stripe", "/infra/db", "/apps/api/v2"];
  const names = ["DATABASE_URL", "FEATURE_SEARCH", "SENTRY_DSN", "TLS_PRIVATE_KEY", "STRIPE_PUBLIC_KEY", "REDIS_URL"];
  const tagSets = [[], ["web"], ["backend", "oncall"], ["locked"], ["public", "web"], ["compliance", "backend"]];
  const checks: Check[] = [];
  for (let i = 0; i < count; i++) {
    const subject = pick(["secrets", "secrets", "secrets", "secrets", "secret-folders", "secret-events", "secret-imports"]);
    const action =
      subject === "secret-events" ? pick(EVENTS) : pick(subject === "secrets" ? ["read", "describeSecret", "readValue", "edit", "delete", "create"] : ["read", "create", "edit", "delete"]);
    const object: Record<string, unknown> = { environment: pick(["dev", "staging", "prod", "prod"]), secretPath: pick(paths) };
    if (subject === "secrets") Object.assign(object, { secretName: pick(names), secretTags: pick(tagSets) });
    checks.push({ action, subject, object });
  }
  return checks;
}

/** Runs `pass` (one sweep over the checks, returning how many were allowed) for about `ms`; sweeps per second. */
function measure(pass: () => number, ms: number): { sweepsPerSecond: number; allowed: number } {
  let sweeps = 0;
  let allowed = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    allowed += pass();
    sweeps++;
    elapsed = performance.now() - start;
  }
  return { sweepsPerSecond: (sweeps * 1000) / elapsed, allowed: allowed / sweeps };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function rate(perSecond: number): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)}M checks/s`;
  if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)}k checks/s`;
  return `${perSecond.toFixed(0)} checks/s`;
}

async function run({ quick, log }: BenchOptions): Promise<BenchRow[]> {
  const checks = workload(2048);
  const compiled = compileRules(rules);
  const ability = caslAbility(rules);
  const tagged = checks.map((c) => caslObject(c.subject, c.object));

  const ours = (): number => {
    let allowed = 0;
    for (const c of checks) if (can(compiled, c.action, c.subject, c.object)) allowed++;
    return allowed;
  };
  const casl = (): number => {
    let allowed = 0;
    for (let i = 0; i < checks.length; i++) if (caslCan(ability, checks[i].action, checks[i].subject, tagged[i])) allowed++;
    return allowed;
  };

  // Same answers first: a faster engine that decides differently would measure nothing.
  checks.forEach((c, i) => {
    if (can(compiled, c.action, c.subject, c.object) !== caslCan(ability, c.action, c.subject, tagged[i])) {
      throw new Error(`engines disagree on ${JSON.stringify(c)}`);
    }
  });
  const allowedShare = ours() / checks.length;
  log(`permissions: ${rules.length} rules, ${checks.length} checks, ${(allowedShare * 100).toFixed(0)}% allowed`);

  const [warmupMs, roundMs, rounds] = quick ? [300, 300, 3] : [1000, 1000, 7];
  measure(ours, warmupMs);
  measure(casl, warmupMs);
  // Alternating rounds spread machine noise evenly over both engines.
  const oursRates: number[] = [];
  const caslRates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    oursRates.push(measure(ours, roundMs).sweepsPerSecond * checks.length);
    caslRates.push(measure(casl, roundMs).sweepsPerSecond * checks.length);
  }
  const [oursRate, caslRate] = [median(oursRates), median(caslRates)];
  const ratio = oursRate / caslRate;
  log(`permissions: ours ${rate(oursRate)}, CASL ${rate(caslRate)}, ${ratio.toFixed(2)}x`);
  return [
    {
      section: "permission checks (concrete objects)",
      ours: rate(oursRate),
      baseline: `CASL ${rate(caslRate)}`,
      ratio: `${ratio.toFixed(2)}x`,
      target: ">= 3x CASL",
      met: ratio >= 3,
    },
  ];
}

const section: BenchSection = { name: "permissions", run };
export default section;
