/** The assertion behind every generated example test (generated/tests/*.examples.test.ts). */
import { expect } from "vitest";
import { runExample, ROLE_FIELDS } from "../../src/normalize/testing.js";
import type { SurfaceTable } from "../../src/normalize/table-types.js";

export interface ExpectedEvent { type: string; payload?: unknown; ids?: string[] }

/**
 * Push `given`, then `input`, through `table`; the events `input` produced must validate, have exactly the
 * expected types in order, contain each expected payload (subset match), carry the listed canonical ids, and
 * name a row of the table (or of a table it delegates to) in raw.rule.
 */
export function expectExample(table: SurfaceTable, given: unknown[], input: unknown, out: ExpectedEvent[]): void {
  const { events, invalid } = runExample(table, given, input);
  expect(invalid, "every event validates against the canonical schema").toEqual([]);
  expect(events.map((e) => e.type)).toEqual(out.map((o) => o.type));
  out.forEach((o, i) => {
    const e = events[i] as any;
    if (o.payload !== undefined) expect(e.payload).toMatchObject(o.payload as object);
    for (const role of o.ids ?? []) expect(e[ROLE_FIELDS[role as keyof typeof ROLE_FIELDS]], `${o.type} carries a canonical ${role} id`).toMatch(/^[a-z]{3}_/);
    expect(e.raw?.rule).toMatch(/^[a-z][a-z0-9-]*#/);
  });
}
