/** The compatibility matrix, generated from the tables (generated/compatibility.gen.ts). */
import { COMPATIBILITY, COMPATIBILITY_MARKDOWN } from "../../generated/compatibility.gen.js";

export type Compatibility = typeof COMPATIBILITY;

export function compatibilityMatrix(): Compatibility {
  return COMPATIBILITY;
}

export function compatibilityMarkdown(): string {
  return COMPATIBILITY_MARKDOWN;
}
