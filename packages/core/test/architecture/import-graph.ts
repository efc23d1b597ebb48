import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The import graph of the packages' sources, read from the files themselves: every `import`,
 * `export … from` and `import()` with a relative specifier, type-only imports included (they
 * tie modules together for a reader as much as value imports do).
 */
export interface ImportGraph {
  /** Repository-relative paths of every source file. */
  readonly files: string[];
  /** For each file, the files it imports. */
  readonly edges: Map<string, Set<string>>;
}

const SPECIFIER = /(?:^|[^.\w])(?:import|export)\s[^;]*?from\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|^\s*import\s*["'](\.{1,2}\/[^"']+)["']/gms;

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

export function readImportGraph(root: string, srcDirs: string[]): ImportGraph {
  const files = srcDirs.flatMap((dir) => sourceFiles(join(root, dir))).map((f) => relative(root, f));
  const known = new Set(files);
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const targets = new Set<string>();
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = match[1] ?? match[2] ?? match[3];
      const base = relative(root, resolve(root, dirname(file), spec));
      const target = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")].find((c) => known.has(c));
      if (target) targets.add(target);
    }
    edges.set(file, targets);
  }
  return { files, edges };
}

/** Strongly connected components with more than one member (or a self-loop): the import cycles. */
export function cycles(nodes: Iterable<string>, edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || edges.get(node)?.has(node)) found.push(component.sort());
    }
  };
  for (const node of nodes) if (!indexOf.has(node)) visit(node);
  return found;
}

/** The graph between folders: an edge wherever a file of one imports a file of another. */
export function folderGraph(graph: ImportGraph, folderOf: (file: string) => string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [file, targets] of graph.edges) {
    const from = folderOf(file);
    if (!out.has(from)) out.set(from, new Set());
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== from) out.get(from)!.add(to);
    }
  }
  return out;
}
