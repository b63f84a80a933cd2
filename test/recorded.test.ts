/**
 * Recorded fixtures (fixtures/recorded/, made by `npm run record` from the real agents): every recording whose
 * surface has a normalizer replays clean — no unknown methods, no malformed input, schema-valid events, a sane
 * lifecycle, exact text reconstruction — and matches its committed expected canonical output. A manifest entry may
 * list `knownIssues`: the exact problems its recording shows today (mapping gaps), asserted as such.
 * Recordings of surfaces without a normalizer yet are listed as skipped.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { validateCanonicalEvent } from "../generated/validators/canonical-event.gen.js";
import { knownReplayProblems, recordings, replayRecording } from "./support/recorded.js";
import { expectVerified } from "./support/verify.js";

const repo = fileURLToPath(new URL("../", import.meta.url));
const all = recordings(repo);

describe("recorded fixtures", () => {
  it("the manifest lists recordings, and every listed file exists", () => {
    expect(all.length).toBeGreaterThan(0);
    for (const r of all) expect(existsSync(join(repo, r.file)), r.file).toBe(true);
  });

  for (const r of all) {
    const title = `${r.surface}/${r.scenario} (${r.agent})`;
    if (!r.normalizable) {
      it.skip(`${title}: no ${r.surface} normalizer yet`, () => {});
      continue;
    }
    it(`${title} replays ${r.knownIssues.length ? `with ${r.knownIssues.length} known issue(s)` : "clean"} and matches ${r.expectedFile}`, () => {
      const { events } = replayRecording(join(repo, r.file), r.surface);
      const problems: string[] = [];
      let last = 0;
      const open = new Set<string>();
      const started = new Set<string>();
      const requests = new Map<string, number>();
      const text = new Map<string, string>();
      for (const e of events) {
        const p: any = e.payload;
        if (!validateCanonicalEvent(e)) problems.push(`#${e.sequence} ${e.type} fails the canonical schema`);
        if (e.sequence !== last + 1) problems.push(`#${e.sequence} follows #${last}`);
        last = e.sequence;
        if (e.type === "runtime.warning" && e.raw?.rule === "agentnorm#unknown") problems.push(`#${e.sequence} ${p.message}`);
        if (e.type === "runtime.error" && p.class === "validation_error") problems.push(`#${e.sequence} ${p.message}`);
        if (e.type === "runtime.warning" && e.raw?.rule === "agentnorm#end") problems.push(`#${e.sequence} ${p.message}`);
        if (e.type === "item.started") { open.add(e.itemId!); started.add(e.itemId!); }
        if (e.type === "item.completed") {
          if (!started.has(e.itemId!)) problems.push(`#${e.sequence} item.completed without item.started`);
          open.delete(e.itemId!);
          const final = p.data?.text;
          if (p.itemType === "assistant_message" && typeof final === "string" && (text.get(e.itemId!) ?? "") !== final) {
            problems.push(`#${e.sequence} assistant text from deltas differs from the item's final text`);
          }
        }
        if (e.type === "content.delta" && p.streamKind === "assistant_text") text.set(e.itemId!, (text.get(e.itemId!) ?? "") + p.delta);
        if (e.type === "request.opened") requests.set(e.requestId!, (requests.get(e.requestId!) ?? 0) + 1);
        if (e.type === "request.resolved") requests.set(e.requestId!, (requests.get(e.requestId!) ?? 0) - 1);
      }
      for (const [id, n] of requests) if (n !== 0) problems.push(`request ${id} opened/resolved balance ${n}`);
      // a recording with documented known issues must show exactly those (fixed → remove them from the manifest)
      expect(problems, r.knownIssues.length ? "known issues (manifest knownIssues) changed: update the manifest entry" : undefined).toEqual(knownReplayProblems(r));
      expectVerified(events, title);
      const expectedPath = join(repo, r.expectedFile);
      expect(existsSync(expectedPath), `${r.expectedFile} exists (npm run fixtures:expected)`).toBe(true);
      const expected = readFileSync(expectedPath, "utf8");
      const actual = replayRecording(join(repo, r.file), r.surface, { includeRaw: false }).events.map((e) => JSON.stringify(e)).join("\n") + "\n";
      expect(actual, `canonical output changed: review, then npm run fixtures:expected`).toBe(expected);
    });
  }
});
