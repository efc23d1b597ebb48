import type { HttpMethod, Route } from "./routes/route.js";

/** What the router needs of a row: where it answers. */
export type RoutePlace = Pick<Route, "method" | "path" | "trailingSlash">;

export interface RouteMatch<R extends RoutePlace = Route> {
  readonly route: R;
  readonly params: Record<string, string>;
}

export type RouteLookup<R extends RoutePlace = Route> =
  | { readonly kind: "match"; readonly match: RouteMatch<R> }
  | { readonly kind: "none" }
  /** A path segment is not valid percent-encoding. */
  | { readonly kind: "malformed" };

interface Node<R> {
  readonly literals: Map<string, Node<R>>;
  /** One child for every `{param}` at this depth, whatever each route calls it. */
  param?: Node<R>;
  route?: R;
  /** The route's param names by their segment index, read when the route matches. */
  paramNames?: (string | undefined)[];
}

const newNode = <R>(): Node<R> => ({ literals: new Map() });

export class DuplicateRouteError extends Error {}

/**
 * A segment trie per method, built once. Literal children are tried before the param child, so
 * `/projects/details` wins over `/projects/{id}`; the trie backtracks when a literal leads nowhere.
 */
export class Router<R extends RoutePlace = Route> {
  private readonly roots = new Map<string, Node<R>>();

  constructor(routes: Iterable<R>) {
    for (const route of routes) this.add(route);
  }

  private add(route: R): void {
    let node = this.roots.get(route.method);
    if (!node) this.roots.set(route.method, (node = newNode()));
    const paramNames: (string | undefined)[] = [];
    for (const segment of splitTemplate(route.path)) {
      const paramName = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(segment)?.[1];
      paramNames.push(paramName);
      if (paramName) {
        node.param ??= newNode();
        node = node.param;
      } else {
        let next = node.literals.get(segment);
        if (!next) node.literals.set(segment, (next = newNode()));
        node = next;
      }
    }
    if (node.route) throw new DuplicateRouteError(`${route.method} ${route.path} is routed twice`);
    node.route = route;
    node.paramNames = paramNames;
  }

  /** `path` is the raw request path without query string. */
  lookup(method: string, path: string): RouteLookup<R> {
    const root = this.roots.get(method as HttpMethod);
    if (!root || !path.startsWith("/")) return { kind: "none" };
    const raw = path.slice(1).split("/");
    const trailingSlash = raw.length > 1 && raw[raw.length - 1] === "";
    if (trailingSlash) raw.pop();
    const segments: string[] = [];
    for (const segment of raw) {
      if (segment === "") return { kind: "none" };
      try {
        segments.push(decodeURIComponent(segment));
      } catch {
        return { kind: "malformed" };
      }
    }
    const leaf = walk(root, segments, 0);
    const route = leaf?.route;
    if (!leaf || !route || (trailingSlash && !route.trailingSlash)) return { kind: "none" };
    const params: Record<string, string> = {};
    leaf.paramNames?.forEach((name, i) => {
      if (name) params[name] = segments[i];
    });
    return { kind: "match", match: { route, params } };
  }
}

function walk<R>(node: Node<R>, segments: string[], index: number): Node<R> | undefined {
  if (index === segments.length) return node.route ? node : undefined;
  const literal = node.literals.get(segments[index]);
  return (literal && walk(literal, segments, index + 1)) || (node.param && walk(node.param, segments, index + 1));
}

function splitTemplate(path: string): string[] {
  if (!path.startsWith("/") || path.endsWith("/")) throw new Error(`route path ${path} must start and not end with /`);
  return path.slice(1).split("/");
}

/** `{param}` names of a route template, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
}
