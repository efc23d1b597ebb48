import { canonicalSubject, expandActions } from "./aliases.js";
import { ANY_ACTION, ANY_SUBJECT } from "./catalogue.js";
import { conjunction, parseConditions, type FieldConstraint, type ObjectPredicate } from "./conditions.js";
import type { PermissionRule } from "./schema.js";

/** A rule after parsing: aliases expanded, conditions turned into constraints and one predicate. */
export interface CompiledRule {
  readonly source: PermissionRule;
  readonly subject: string;
  readonly actions: readonly string[];
  readonly inverted: boolean;
  readonly constraints: readonly FieldConstraint[];
  /** null when the rule has no conditions (an empty conditions object counts as none, as in CASL). */
  readonly matches: ObjectPredicate | null;
}

/** The rules that can decide one subject/action check, highest priority (latest) first. */
export interface RuleBucket {
  readonly rules: readonly CompiledRule[];
  /** The answer for a check without an object, which needs no per-call work. */
  readonly withoutObject: boolean;
}

export type CheckedObject = Readonly<Record<string, unknown>>;

/**
 * An actor's rules compiled for checking. Everything is parsed in the constructor; the rules
 * relevant to a subject/action pair are gathered on its first check and kept, so compiling per
 * request costs nothing for pairs the request never asks about.
 */
export class CompiledRules {
  readonly rules: readonly CompiledRule[];
  private readonly subjects: ReadonlySet<string>;
  private readonly actions: ReadonlySet<string>;
  // Null-prototype dictionaries: faster than Maps for these few string keys, and a subject such
  // as "constructor" finds nothing inherited.
  private readonly buckets: Record<string, Record<string, RuleBucket> | undefined> = Object.create(null);

  constructor(rules: readonly PermissionRule[]) {
    this.rules = rules.map(compileRule);
    this.subjects = new Set(this.rules.map((r) => r.subject));
    this.actions = new Set(this.rules.flatMap((r) => r.actions));
  }

  bucket(subject: string, action: string): RuleBucket {
    const cached = this.buckets[subject]?.[action];
    if (cached !== undefined) return cached;
    // A subject no rule names is matched only by `all` rules, an action no rule names only by
    // `manage` rules, so such checks share those buckets and the cache stays bounded.
    const knownSubject = this.subjects.has(subject) ? subject : ANY_SUBJECT;
    const knownAction = this.actions.has(action) ? action : ANY_ACTION;
    const table = (this.buckets[knownSubject] ??= Object.create(null) as Record<string, RuleBucket>);
    return (table[knownAction] ??= this.gather(knownSubject, knownAction));
  }

  private gather(subject: string, action: string): RuleBucket {
    const relevant: CompiledRule[] = [];
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i];
      if (rule.subject !== subject && rule.subject !== ANY_SUBJECT) continue;
      if (!rule.actions.includes(action) && !rule.actions.includes(ANY_ACTION)) continue;
      relevant.push(rule);
      // Nothing below an unconditional rule can ever be reached.
      if (rule.matches === null) break;
    }
    const first = relevant.find((r) => !r.inverted || r.matches === null);
    return { rules: relevant, withoutObject: first !== undefined && !first.inverted };
  }
}

function compileRule(source: PermissionRule): CompiledRule {
  const parsed = parseConditions(source.conditions);
  // A stored glob the matcher no longer accepts matches nothing: it grants nothing, and a
  // denial ignores it (so denies more).
  const constraints = source.inverted === true ? parsed.filter((c) => c.op !== "glob" || c.unsupported !== true) : parsed;
  const actions = Array.isArray(source.action) ? source.action : [source.action];
  const subject = canonicalSubject(source.subject);
  return {
    source,
    subject,
    actions: expandActions(subject, actions),
    inverted: source.inverted === true,
    constraints,
    matches: constraints.length === 0 ? null : conjunction(constraints),
  };
}

/** Parses and indexes rules once; checks against the result are cheap. Throws on conditions it cannot evaluate. */
export function compileRules(rules: readonly PermissionRule[]): CompiledRules {
  return new CompiledRules(rules);
}

/**
 * Whether the rules allow `action` on `subject`, with CASL's `createMongoAbility` semantics.
 * Without an object, conditions are ignored (a conditional rule still means "may"), except that
 * a conditional inverted rule does not deny: such answers are for showing capabilities only,
 * never for authorizing access to a concrete resource.
 */
export function can(compiled: CompiledRules, action: string, subject: string, object?: CheckedObject): boolean {
  const bucket = compiled.bucket(subject, action);
  if (object == null) return bucket.withoutObject;
  const rules = bucket.rules;
  for (let i = 0; i < rules.length; i++) {
    const rule = rules[i];
    if (rule.matches === null || rule.matches(object)) return !rule.inverted;
  }
  return false;
}
