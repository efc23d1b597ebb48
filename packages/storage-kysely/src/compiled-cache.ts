import type { Compilable, CompiledQuery } from "kysely";

/** Distinct statement shapes kept per table; `in` lists of many lengths must not grow it without bound. */
const CAPACITY = 256;

/**
 * Compiled SQL per statement shape. Building and compiling a Kysely query costs tens of
 * microseconds, many times what SQLite takes to run a lookup by key; the port's queries repeat a
 * few shapes with new values, so each shape is compiled once and later calls bind new parameters.
 *
 * A cached statement is only as good as the parameter order the caller derives on its own; each
 * compile checks that order against Kysely's, and a shape where they differ is never cached (it
 * is compiled every time instead), so a mismatch costs speed, never correctness.
 */
export class CompiledCache {
  private readonly statements = new Map<string, CompiledQuery | null>();

  /** `build` is called only when the shape is not cached; `params` are the values to bind, in SQL order. */
  compile(key: string, params: readonly unknown[], build: () => Compilable): CompiledQuery {
    const cached = this.statements.get(key);
    if (cached) return { ...cached, parameters: params };
    const compiled = build().compile();
    if (cached === undefined) this.remember(key, sameParams(compiled.parameters, params) ? compiled : null);
    return compiled;
  }

  private remember(key: string, compiled: CompiledQuery | null): void {
    if (this.statements.size >= CAPACITY) this.statements.delete(this.statements.keys().next().value as string);
    this.statements.set(key, compiled);
  }
}

function sameParams(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
