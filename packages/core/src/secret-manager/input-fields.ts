import { z } from "zod";
import type { ProjectRef } from "../access/project-access.js";

/**
 * Input pieces shared by the secrets area's operations. Query strings arrive as text, so booleans
 * and integers accept both their JSON form and their query-string spelling; `z.coerce` is not used
 * because it would read "false" as true.
 */
export const queryBoolean = z.union([z.boolean(), z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1")]);

export const queryPositiveInt = z.union([
  z.number().int().min(1),
  z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, "Expected a positive integer")
    .transform(Number),
]);

/** Comma-separated list in a query string, or a JSON array. */
export const commaList = z.union([
  z.array(z.string().min(1).max(64)).max(100),
  z
    .string()
    .max(4096)
    .transform((v) => v.split(",").map((s) => s.trim()).filter((s) => s !== "")),
]);

export const environmentSlug = z.string().trim().min(1).max(64);

/** A secret name: no whitespace inside, as in Infisical, so that it works as an environment variable. */
export const secretName = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .refine((v) => !/\s/.test(v), "Secret names cannot contain whitespace");

export const secretType = z.enum(["shared", "personal"]);

const projectRefShape = {
  projectId: z.string().min(1).max(255).optional().describe("The project's id (v4 name)"),
  workspaceId: z.string().min(1).max(255).optional().describe("The project's id (v1–v3 name)"),
  projectSlug: z.string().min(1).max(255).optional().describe("The project's slug, instead of its id"),
  workspaceSlug: z.string().min(1).max(255).optional().describe("Infisical's older name for projectSlug"),
};

/**
 * An object input that names a project by `projectId`, `workspaceId` (Infisical's older name for
 * it) or `projectSlug`; the operation receives `project`, a ProjectRef, instead of the three.
 */
export function projectScoped<S extends z.ZodRawShape>(shape: S, options: { strict?: boolean } = {}) {
  // Strict inputs refuse unknown properties (422); the older routes strip them, as Infisical's clients send extras.
  const object = options.strict ? z.strictObject({ ...projectRefShape, ...shape }) : z.object({ ...projectRefShape, ...shape });
  return object
    .refine((v) => {
      const ref = v as { projectId?: string; workspaceId?: string; projectSlug?: string; workspaceSlug?: string };
      return !!(ref.projectId ?? ref.workspaceId ?? ref.projectSlug ?? ref.workspaceSlug);
    }, {
      message: "projectId (or workspaceId, or projectSlug) is required",
      path: ["projectId"],
    })
    // A body must not redirect a request whose URL names the project (issue 15, principle 12): two
    // different names for the project are refused rather than one of them chosen.
    .refine((v) => {
      const ref = v as { projectId?: string; workspaceId?: string; projectSlug?: string; workspaceSlug?: string };
      return (ref.projectId === undefined || ref.workspaceId === undefined || ref.projectId === ref.workspaceId) &&
        (ref.projectSlug === undefined || ref.workspaceSlug === undefined || ref.projectSlug === ref.workspaceSlug);
    }, {
      message: "projectId and workspaceId (or projectSlug and workspaceSlug) name different projects",
      path: ["projectId"],
    })
    .transform((value) => {
      const { projectId, workspaceId, projectSlug, workspaceSlug, ...rest } = value as typeof value & {
        projectId?: string;
        workspaceId?: string;
        projectSlug?: string;
        workspaceSlug?: string;
      };
      const id = projectId ?? workspaceId;
      const project: ProjectRef = id ? { projectId: id } : { projectSlug: (projectSlug ?? workspaceSlug) as string };
      // `project` first: V8 adds fields that follow a spread through a slow path.
      return { project, ...(rest as Omit<typeof value, keyof typeof projectRefShape>) };
    });
}
