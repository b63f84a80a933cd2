/**
 * EVENTS.md §3.1 / §3.2 conformance: every row of the spec's Codex app-server tables yields its canonical type —
 * statically (the compiled table's rows for that method emit it) and at run time (one of the row's examples,
 * which the generated tests execute, produces it). The spec is read from ../shared/seeds when present.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { COMPATIBILITY } from "./support/compatibility.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const seed = `${root}../shared/seeds/000_e9806898a2abf73f.txt`;
const present = existsSync(seed);
if (!present) console.warn(`spec-events-md: ${seed} not found; EVENTS.md conformance is skipped`);

interface SpecRow { methods: string[]; types: string[]; any: boolean; section: string }

/** The markdown tables of §3.1 and §3.2, from the document's last line (the whole file as one markdown line). */
function specRows(): SpecRow[] {
  const text = readFileSync(seed, "utf8").trim().split("\n").pop()!;
  const rows: SpecRow[] = [];
  for (const [section, start, end] of [["3.1", "### 3.1", "### 3.2"], ["3.2", "### 3.2", "### 3.3"]] as const) {
    const part = text.slice(text.indexOf(start), text.indexOf(end));
    for (const m of part.matchAll(/\|\s*((?:`[^`|]+`\s*(?:\/\s*)?)+)\|\s*([^|]+)\|/g)) {
      const methods = [...m[1].matchAll(/`([^`]+)`/g)].map((x) => x[1]);
      const types = [...m[2].matchAll(/`([a-z-]+(?:\.[a-z-]+)+)`/g)].map((x) => x[1]).filter((t) => t !== "app-list.updated");
      if (methods.length && types.length && !methods[0].includes(" ")) rows.push({ methods, types, any: /\bor\b/.test(m[2]), section });
    }
  }
  return rows;
}

const surface = COMPATIBILITY.surfaces["codex-app-server"];
const table = parse(readFileSync(`${root}mappings/codex-app-server.yaml`, "utf8"));

describe.skipIf(!present)("EVENTS.md §3.1/§3.2: every Codex app-server row yields its canonical type", () => {
  const rows = present ? specRows() : [];

  it("finds the spec's rows (38 notification rows, 7 request rows)", () => {
    expect(rows.filter((r) => r.section === "3.1").length).toBe(38);
    expect(rows.filter((r) => r.section === "3.2").length).toBe(7);
  });

  for (const r of rows) {
    for (const method of r.methods) {
      const kind = r.section === "3.1" ? "notification" : "request";
      it(`${kind} ${method} → ${r.types.join(r.any ? " or " : " + ")}`, () => {
        const entry = (surface.kinds as any)[kind].methods[method];
        expect(entry?.status, `${method} is mapped`).toBe("mapped");
        const emitted: string[] = entry.events;
        const hit = r.types.filter((t) => emitted.includes(t));
        if (r.any) expect(hit.length, `${method} emits one of ${r.types}`).toBeGreaterThan(0);
        else expect(hit, `${method} emits all of ${r.types}`).toEqual(r.types);
        // At run time: an example of a row for this method produces the type(s).
        const produced = new Set<string>(
          table.rows
            .filter((row: any) => (row.kind ?? "notification") === kind && [row.match].flat().includes(method))
            .flatMap((row: any) => (row.examples ?? []).flatMap((ex: any) => ex.out.map((o: any) => o.type))),
        );
        const shown = r.types.filter((t) => produced.has(t));
        if (r.any) expect(shown.length, `an example of ${method} shows one of ${r.types}`).toBeGreaterThan(0);
        else expect(shown, `examples of ${method} show ${r.types}`).toEqual(r.types);
      });
    }
  }
});
