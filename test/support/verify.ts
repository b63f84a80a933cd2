/**
 * The one assertion every conformance test runs on its canonical output: the stream verifier (src/verify/verify.ts)
 * finds zero violations. Warnings (e.g. a request still open when a recording stops) are returned for the
 * caller to assert on, not failed here.
 */
import { expect } from "vitest";
import { formatFinding, verifyEvents, type VerifyResult } from "../../src/verify/verify.js";

export function expectVerified(events: Iterable<unknown>, label = "canonical stream"): VerifyResult {
  const r = verifyEvents(events);
  expect(r.violations.map(formatFinding), `${label}: stream verifier violations`).toEqual([]);
  return r;
}
