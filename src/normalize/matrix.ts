/**
 * The compatibility matrix, generated from the tables. It ships once, as `agentnorm/compatibility.json`; this module
 * reads it on first use (Node: through the package's own export) and renders it as Markdown (what `agentnorm matrix`
 * prints and the build writes to dist/COMPATIBILITY.md).
 */
import { createRequire } from "node:module";

import { renderCompatibilityMarkdown, type Compatibility } from "../model/matrix.js";

export { LIVE_CALLS, renderCompatibilityMarkdown, type Compatibility, type LiveCallName, type LiveDriverEntry } from "../model/matrix.js";

let loaded: Compatibility | undefined;

/** The matrix (read from agentnorm/compatibility.json on first call; in a browser, fetch that file instead). */
export function compatibilityMatrix(): Compatibility {
  return (loaded ??= createRequire(import.meta.url)("agentnorm/compatibility.json") as Compatibility);
}

/** The matrix as Markdown. */
export function compatibilityMarkdown(): string {
  return renderCompatibilityMarkdown(compatibilityMatrix());
}
