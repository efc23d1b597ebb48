/**
 * `@strongroom/core/zod`: zod as core bundles it. Core's dist carries zod in its own chunk (one
 * module instead of zod's ~95 ES modules, each resolved, read and compiled at start-up: issue
 * #22); the other packages build their schemas with this copy so there is one zod, one schema
 * registry, and one set of classes that the OpenAPI document and `instanceof` checks see.
 */
export { z } from "zod";
