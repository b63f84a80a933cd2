/**
 * The shipped documents (docs/) stay complete as the model grows: every canonical event type, id prefix, verifier
 * rule and capture field is documented, and nothing cites a document the package does not hold.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CANONICAL_EVENT_TYPES, EventType, ID_PREFIXES } from "../generated/canonical.gen.js";
import { VERIFY_RULES } from "../src/verify/verify.js";
import { CAPTURE_STAGES } from "../src/capture/capture.js";

const ROOT = join(import.meta.dirname, "..");
const doc = (f: string) => readFileSync(join(ROOT, "docs", f), "utf8");

describe("docs/", () => {
  it("canonical-model.md documents every event type and every id prefix", () => {
    const text = doc("canonical-model.md");
    for (const t of CANONICAL_EVENT_TYPES) expect(text, t).toContain(`| \`${t}\` |`);
    for (const p of Object.values(ID_PREFIXES)) expect(text, p).toContain(`\`${p}_\``);
  });

  it("EventType names every canonical type once", () => {
    expect(Object.values(EventType).sort()).toEqual([...CANONICAL_EVENT_TYPES].sort());
    expect(EventType.ContentDelta).toBe("content.delta");
    expect(EventType.ThreadTokenUsageUpdated).toBe("thread.token-usage.updated");
  });

  it("verify.md lists every verifier rule with its text", () => {
    const text = doc("verify.md");
    for (const [rule, what] of Object.entries(VERIFY_RULES)) {
      expect(text, rule).toContain(`| \`${rule}\` |`);
      expect(text, rule).toContain(what.replace(/^\(warning\) /, "").replace(/\|/g, "\\|"));
    }
  });

  it("capture.md documents every stage and every field of the capture schema", () => {
    const text = doc("capture.md");
    for (const s of CAPTURE_STAGES) expect(text).toContain(`\`${s}\``);
    const schema = JSON.parse(readFileSync(join(ROOT, "schemas/capture/capture-envelope.schema.json"), "utf8"));
    const fields = [...Object.keys(schema.definitions.Common.properties), "captureId", "timestamp"];
    for (const f of fields) expect(text, f).toContain(`\`${f}\``);
  });

  it("no shipped document cites an outside document, a seed or an issue number", () => {
    for (const f of readdirSync(join(ROOT, "docs")).filter((x) => x.endsWith(".md"))) {
      const text = doc(f);
      expect(text, f).not.toMatch(/EVENTS\.md|PREPARATION|§|\bseed \d|\bissue #?\d/i);
    }
  });
});
