import { z } from "zod";

/** Folder names: what a path segment may be (Infisical's rule), so a path never needs escaping. */
export const FOLDER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const MAX_PATH_LENGTH = 1024;

export const ROOT_PATH = "/";

/**
 * `/a/b` from any spelling of it: leading slash added, repeated and trailing slashes dropped.
 * Returns undefined when a segment is not a valid folder name (`.`, `..`, spaces, ...).
 */
export function normalizePath(raw: string): string | undefined {
  const segments = raw.trim().split("/").filter((s) => s !== "");
  if (!segments.every((s) => FOLDER_NAME_PATTERN.test(s))) return undefined;
  return segments.length === 0 ? ROOT_PATH : `/${segments.join("/")}`;
}

export const joinPath = (parent: string, name: string): string => (parent === ROOT_PATH ? `/${name}` : `${parent}/${name}`);

/** `/a/b` → `/a`; `/a` → `/`. */
export function parentPath(path: string): string {
  const cut = path.lastIndexOf("/");
  return cut <= 0 ? ROOT_PATH : path.slice(0, cut);
}

/** Whether `path` is `base` or lies below it. */
export const isWithin = (path: string, base: string): boolean =>
  base === ROOT_PATH || path === base || path.startsWith(`${base}/`);

/** A secret path input: normalised, defaulting to the root. */
export const secretPathSchema = z
  .string()
  .max(MAX_PATH_LENGTH)
  .transform((raw, ctx) => {
    const path = normalizePath(raw);
    if (path === undefined) {
      ctx.addIssue({ code: "custom", message: "Path segments may hold only letters, digits, '-' and '_'" });
      return z.NEVER;
    }
    return path;
  });
