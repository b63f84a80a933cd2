/**
 * The examples in examples/ run and do what their README says: the Node host answers every request the way the
 * recorded client did; the browser page renders the stream live in headless Chromium (skipped, visibly, without
 * one) with the blocks the accumulator shows; the JVM note's sample event and Kotlin envelope match the schema.
 * Needs `npm run build` first (the examples import the built package).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { createAccumulator, snapshotBlocks } from "../src/render/accumulator.js";
import { validateCanonicalEvent } from "../src/validate.js";

const ROOT = join(import.meta.dirname, "..");
const EX = join(ROOT, "examples");
const built = existsSync(join(ROOT, "dist/pkg/index.js"));
const CHROMIUM = process.env.AGENTNORM_CHROMIUM ?? "/usr/bin/chromium";
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`[examples] browser-live: SKIPPED, no Chromium at ${CHROMIUM}`);

/** What the accumulator shows for the bundled recording (the reference the examples are checked against). */
function reference() {
  const n = createNormalizer({ surface: "codex-app-server" });
  const acc = createAccumulator();
  let events = 0;
  for (const line of readFileSync(join(EX, "node-host/session.ndjson"), "utf8").split("\n")) for (const e of n.pushLine(line)) { acc.apply(e); events++; }
  for (const e of n.end()) { acc.apply(e); events++; }
  return { events, blocks: snapshotBlocks(acc.snapshot()) };
}

describe.skipIf(!built)("examples", () => {
  it("node-host: replays the recording and answers each request as the recorded client did", () => {
    const out = execFileSync(process.execPath, [join(EX, "node-host/host.mjs")], { cwd: ROOT, encoding: "utf8" });
    expect(out).toContain("answers: 4 same as the recorded client, 0 different");
    expect(out.match(/: same answer/g)?.length).toBe(4);
    expect(out).toMatch(/tool command_execution \[declined\] \/bin\/bash -lc 'git checkout/);
    expect(out).toMatch(/permission command_execution_approval \[resolved\] reject_once/);
  });

  it.skipIf(!HAVE_CHROMIUM)("browser-live: the page renders the stream live, block by block, as the accumulator shows it", async () => {
    execFileSync(process.execPath, [join(EX, "browser-live/build.mjs")], { cwd: ROOT, encoding: "utf8" });
    const { chromium } = await import("playwright-core");
    const profile = mkdtempSync(join(tmpdir(), "agentnorm-examples-"));
    const ctx = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
    const errors: string[] = [];
    try {
      await ctx.route(/^(?!file:)/, (route) => { errors.push(route.request().url()); return route.abort(); });
      const page = await ctx.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${pathToFileURL(join(EX, "browser-live/index.html")).href}?delay=1`);
      await page.waitForSelector("body[data-done]", { timeout: 60_000 });
      const shown = await page.$$eval("[data-block-id]", (els) => els.map((el) => ({ kind: (el as HTMLElement).dataset.kind, text: el.textContent ?? "" })));
      const status = await page.textContent("#status");
      const ref = reference();
      expect(errors).toEqual([]);
      expect(status).toContain(`done: ${ref.events} events`);
      expect(shown.map((b) => b.kind)).toEqual(ref.blocks.map((b) => b.kind));
      const finalText = ref.blocks.filter((b) => b.kind === "text").map((b) => (b as { text: string }).text);
      for (const t of finalText) expect(shown.some((b) => b.text.endsWith(t))).toBe(true);
      expect(shown.find((b) => b.kind === "tool" && b.text.includes("git checkout"))?.text).toContain("[declined]");
      expect(Number(/(\d+) block redraws/.exec(status ?? "")?.[1])).toBeGreaterThan(ref.blocks.length);
    } finally {
      await ctx.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }, 120_000);

  it("jvm: the sample event is valid, and the Kotlin envelope declares exactly the schema's envelope fields", () => {
    const sample = JSON.parse(readFileSync(join(EX, "jvm/sample-event.json"), "utf8"));
    expect(validateCanonicalEvent(sample as unknown)).toBe(true);
    const note = readFileSync(join(EX, "jvm/README.md"), "utf8");
    const kotlin = /data class CanonicalEvent\(([\s\S]*?)\n\)/.exec(note)![1];
    const declared = [...kotlin.matchAll(/val (\w+):/g)].map((m) => m[1]).sort();
    const schema = JSON.parse(readFileSync(join(ROOT, "generated/canonical.schema.json"), "utf8"));
    expect(declared).toEqual(Object.keys(schema.definitions.RuntimeEventEnvelope.properties).concat(["type", "payload"].filter((k) => !(k in schema.definitions.RuntimeEventEnvelope.properties))).sort());
  });
});
