/**
 * Verifier violations for the viewer's badges. src/verify.ts (issue 9) is not on this branch yet: until it is,
 * this returns undefined and the page says the stream was not verified.
 */
import type { ViewerEvent, ViewerProblem } from "./types.js";

export function verifierProblems(_events: readonly ViewerEvent[]): ViewerProblem[] | undefined {
  return undefined;
}
