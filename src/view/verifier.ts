/**
 * Verifier findings for the viewer's badges: src/verify/verify.ts run over the stream the page shows.
 * Violations badge as "violation"; the verifier's warnings (legal but worth knowing, e.g. a request still open
 * when the stream stops) as "warning". No Node APIs.
 */
import { verifyEvents, type VerifyFinding } from "../verify/verify.js";
import type { ViewerEvent, ViewerNative, ViewerProblem } from "./types.js";

/** The events as they were: raw.payload back from the natives (null when none), without the viewer's `native` link. */
function restored(events: readonly ViewerEvent[], natives: readonly ViewerNative[]): unknown[] {
  return events.map((e) => {
    const { native, ...rest } = e;
    if (!rest.raw) return rest;
    return { ...rest, raw: { ...rest.raw, payload: native !== undefined ? natives[native].payload : null } };
  });
}

export function verifierProblems(events: readonly ViewerEvent[], natives: readonly ViewerNative[]): ViewerProblem[] {
  const r = verifyEvents(restored(events, natives));
  const one = (f: VerifyFinding, kind: "violation" | "warning"): ViewerProblem => ({ kind, ...(f.sequence !== undefined ? { sequence: f.sequence } : {}), message: `[${f.rule}] ${f.reason}` });
  return [...r.violations.map((f) => one(f, "violation")), ...r.warnings.map((f) => one(f, "warning"))];
}
