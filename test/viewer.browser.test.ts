/**
 * The viewer page in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core; never a
 * downloaded browser). For a fixture of each surface: open the generated file via file://, click a tool card and
 * check that the timeline and native panes follow, check the badge counts, save a screenshot to test-artifacts/.
 * Without Chromium every test here is skipped, visibly, with the reason.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { SURFACE_NAMES } from "../generated/surfaces.gen.js";
import { COMPATIBILITY } from "../generated/compatibility.gen.js";
import { loadInput, viewerData } from "../src/view/data.js";
import { matrixHtml, viewerHtml } from "../src/view/html.js";
import { PROBLEM_KINDS, type TranscriptBlock, type ViewerData } from "../src/view/types.js";
import { devFolder } from "./support/dev-recordings.js";
import { longStream, problemCapture, problemStream, viewerFixtures, type ViewerFixture } from "./support/viewer.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const CHROMIUM = process.env.AGENTNORM_CHROMIUM ?? "/usr/bin/chromium";
const HAVE = existsSync(CHROMIUM);
const WHY = HAVE ? "" : ` — SKIPPED: no Chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run does)`;
const ARTIFACTS = join(ROOT, "test-artifacts");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-view-browser-"));
if (!HAVE) console.warn(`[viewer.browser] ${WHY.slice(3)}`);

let ctx: BrowserContext | undefined;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!HAVE) return;
  const { chromium } = await import("playwright-core");
  ctx = await chromium.launchPersistentContext(mkdtempSync(join(TMP, "profile-")), {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1500, height: 900 },
  });
  // Nothing may leave the page: any request other than the file itself fails the test that made it.
  await ctx.route(/^(?!file:)/, (route) => { pageErrors.push(`network request: ${route.request().url()}`); return route.abort(); });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await ctx?.close();
  rmSync(TMP, { recursive: true, force: true });
});

const read = (f: string) => readFileSync(join(ROOT, f), "utf8");
const ndjson = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).join("\n") + "\n";

/** Write the page, open it via file:// (in `reuse`, or a new tab), wait until the script says it is ready. */
async function open(name: string, data: ViewerData, reuse?: Page): Promise<Page> {
  const file = join(TMP, `${name}.html`);
  writeFileSync(file, viewerHtml(data));
  const page = reuse ?? await ctx!.newPage();
  if (!reuse) {
    page.on("pageerror", (e) => pageErrors.push(`${page.url()}: ${e.message}`));
    page.on("console", (m) => { if (m.type() === "error") pageErrors.push(`${page.url()}: console: ${m.text()}`); });
  }
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector("body[data-ready]", { timeout: 60_000 });
  return page;
}
function firstBlock(data: ViewerData, pred: (b: TranscriptBlock) => boolean): TranscriptBlock | undefined {
  const walk = (bs: TranscriptBlock[]): TranscriptBlock | undefined => {
    for (const b of bs) {
      if (pred(b)) return b;
      const c = walk(b.children ?? []);
      if (c) return c;
    }
    return undefined;
  };
  return walk([...data.transcript.preamble, ...data.transcript.turns.flatMap((t) => t.blocks)]);
}
async function headerCounts(page: Page): Promise<Record<string, string>> {
  return page.$$eval("#counts .count", (els) => Object.fromEntries(els.map((e) => [(e as HTMLElement).dataset.kind!, (e as HTMLElement).dataset.count!])));
}
function expectedCounts(data: ViewerData): Record<string, string> {
  return Object.fromEntries(PROBLEM_KINDS.map((k) => [k, k === "violation" && !data.meta.verified ? "" : String(data.problems.filter((p) => p.kind === k).length)]));
}

// One fixture per surface, preferring the scenario with a shell command (it has a tool card).
const fixtures = viewerFixtures(ROOT);
const perSurface = new Map<string, ViewerFixture>();
for (const f of fixtures) if (f.from) if (!perSurface.has(f.surface) || /\/shell\./.test(f.file)) if (!perSurface.get(f.surface)?.file.includes("/shell.")) perSurface.set(f.surface, f);

describe("viewer page in Chromium", () => {
  const clickTests = [...perSurface.values(), ...fixtures.filter((x) => x.file.startsWith("fixtures/codex-app-server/") || /replay\/codex-app-server-approval/.test(x.file))];
  for (const f of new Set(clickTests)) {
    it.skipIf(!HAVE)(`${f.label}: clicking a tool card selects its event in the timeline and its native message${WHY}`, async () => {
      const data = viewerData(loadInput(read(f.file), { from: f.from }));
      const name = `viewer-${f.surface}-${f.file.split("/").pop()!.replace(/\.ndjson$/, "")}`;
      const page = await open(name, data);
      // a tool card; a surface that only carries approvals (claude-permission) has permission cards instead
      const tool = firstBlock(data, (b) => b.kind === "tool") ?? (f.surface === "claude-permission" ? firstBlock(data, (b) => b.kind === "permission") : undefined);
      expect(tool, "the fixture has a tool card").toBeDefined();
      const seq = tool!.seqs[0];
      const event = data.events.find((e) => e.sequence === seq)!;

      // Click the card's header (not a <summary> or a nested card).
      await page.locator(`.card[data-block="${tool!.id}"] > .hd`).first().click();
      await expect.poll(() => page.getAttribute(".row.selected", "data-seq")).toBe(String(seq));
      expect(await page.getAttribute(`.card[data-block="${tool!.id}"]`, "class")).toContain("selected");
      expect(await page.textContent("#native-rule")).toBe(event.raw?.rule ?? "—");
      const { native: _n, ...shown } = event;
      expect(JSON.parse((await page.textContent("#canonical-json"))!)).toEqual(shown);
      expect(event.native, "the tool's first event has a native message").toBeTypeOf("number");
      expect(JSON.parse((await page.textContent("#native-json"))!)).toEqual(data.natives[event.native!].payload);
      // The card's other events are marked in the timeline.
      const related = await page.$$eval(".row.related", (rs) => rs.map((r) => Number((r as HTMLElement).dataset.seq)));
      for (const s of related) expect(tool!.seqs).toContain(s);

      // Header counts = the page's problems; each problem's row carries its badge.
      expect(await headerCounts(page)).toEqual(expectedCounts(data));
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });

      // Timeline → transcript + native: click the last row of another card.
      const other = data.events.filter((e) => e.sequence > seq && e.itemId && e.itemId !== tool!.id).pop();
      if (other) {
        await page.selectOption("#f-item", { label: "" }).catch(() => undefined);
        await page.fill("#f-item", other.itemId!);
        await page.click(`.row[data-seq="${other.sequence}"]`);
        expect(await page.getAttribute(".row.selected", "data-seq")).toBe(String(other.sequence));
        expect(await page.locator(".card.selected").count()).toBe(1);
        const chosen = await page.getAttribute(".card.selected", "data-block");
        const owner = firstBlock(data, (b) => b.seqs.includes(other.sequence));
        expect(chosen).toBe(owner?.id);
        await page.fill("#f-item", "");
      }
      // Native → timeline: the chips of the native message select their events.
      const chip = page.locator("#native-body .chip:not(.current)").first();
      if (await chip.count()) {
        const s = await chip.getAttribute("data-seq");
        await chip.click();
        expect(await page.getAttribute(".row.selected", "data-seq")).toBe(s);
      }
      await page.close();
      expect(pageErrors).toEqual([]);
    });
  }

  it.skipIf(!HAVE)(`every repo fixture (${fixtures.length}) opens with no script error and shows all its events${WHY}`, async () => {
    let page: Page | undefined;
    for (const [i, f] of fixtures.entries()) {
      const data = viewerData(loadInput(read(f.file), { from: f.from }));
      page = await open(`all-${i}`, data, page);
      expect(await page.textContent("#tl-note"), f.label).toBe(`${data.events.length.toLocaleString("en")} events`);
      expect(await page.locator("#tr-list .card").count(), f.label).toBeGreaterThan(0);
      expect(await headerCounts(page), f.label).toEqual(expectedCounts(data));
    }
    await page?.close();
    expect(pageErrors).toEqual([]);
  }, 240_000);

  it.skipIf(!HAVE)(`problems are badged on the timeline and counted in the header (capture with redactions)${WHY}`, async () => {
    const data = viewerData(loadInput(problemCapture()));
    const page = await open("viewer-problems", data);
    const counts = await headerCounts(page);
    expect(counts).toEqual({ violation: "1", error: "1", warning: "1", unknown: "1", redaction: "2", repair: "1" });
    const badge = async (seq: number) => page.$$eval(`.row[data-seq="${seq}"] .badge`, (bs) => bs.map((b) => b.textContent));
    expect(await badge(5)).toEqual(["unknown"]);
    expect(await badge(7)).toEqual(["warning"]);
    expect(await badge(8)).toEqual(["error"]);
    expect(await badge(3)).toEqual(["redaction"]);
    expect(await badge(9)).toEqual(["violation", "repair"]);
    expect(await badge(4)).toEqual([]);
    // The header count filters the timeline to those events and selects the first.
    await page.click("#count-redaction");
    expect(await page.$$eval(".row", (rs) => rs.map((r) => (r as HTMLElement).dataset.seq))).toEqual(["3", "6"]);
    expect(await page.getAttribute(".row.selected", "data-seq")).toBe("3");
    expect(await page.textContent("#native-body")).toContain("env at /payload/payload/data/env/OPENAI_API_KEY");
    // Arrow keys walk the (filtered) timeline, and the other panes follow.
    await page.focus("#tl-scroll");
    await page.keyboard.press("ArrowDown");
    expect(await page.getAttribute(".row.selected", "data-seq")).toBe("6");
    expect(await page.getAttribute(".card.selected", "data-block")).toBe("itm_1:tool");
    expect(await page.textContent("#native-body")).toContain("secret_field at /payload/payload/data/headers/authorization");
    // A payload with </script> shows as text, not markup.
    expect(await page.textContent(`.card[data-block="itm_1:tool"] .title`)).toBe("echo </script><script>alert(1)</script>");
    await page.click("#count-redaction");
    expect(await page.locator(".row").count()).toBe(data.events.length);
    await page.screenshot({ path: join(ARTIFACTS, "viewer-problems.png") });
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`100k events: the timeline renders only visible rows, scrolls to the end and selects there${WHY}`, async () => {
    const data = viewerData(loadInput(ndjson(longStream(1000, 96))));
    expect(data.events.length).toBe(100_000);
    const t0 = Date.now();
    const page = await open("viewer-100k", data);
    const loadMs = Date.now() - t0;
    const rows = await page.locator(".row").count();
    expect(rows).toBeGreaterThan(10);
    expect(rows).toBeLessThan(200);
    expect(await page.$eval("#tl-spacer", (e) => (e as HTMLElement).getBoundingClientRect().height)).toBe(100_000 * 22);
    expect(await page.locator("#tr-list > *").count()).toBeLessThan(400); // transcript cards render in chunks too
    await page.$eval("#tl-scroll", (e) => { e.scrollTop = e.scrollHeight; });
    await page.waitForSelector('.row[data-seq="100000"]');
    expect(await page.locator(".row").count()).toBeLessThan(200);
    const t1 = Date.now();
    await page.click('.row[data-seq="100000"]');
    await expect.poll(() => page.getAttribute(".turn.selected", "data-turn")).toBe("trn_1000");
    const selectMs = Date.now() - t1;
    await page.click('.row[data-seq="99999"]');
    expect(await page.getAttribute(".card.selected", "data-block")).toBe("itm_1000:text");
    // The transcript moved its window there instead of rendering every card up to the end…
    expect(await page.locator("#tr-list > *").count()).toBeLessThan(400);
    const above = await page.textContent("#tr-before");
    expect(above).toMatch(/cards above/);
    // …and grows upwards as it scrolls up.
    const before = await page.locator("#tr-list > *").count();
    await page.$eval("#tr-scroll", (e) => { e.scrollTop = 0; });
    await expect.poll(() => page.locator("#tr-list > *").count()).toBeGreaterThan(before);
    expect(await page.textContent("#tr-before")).not.toBe(above);
    console.log(`[viewer.browser] 100k events: page opened in ${loadMs} ms, select at the end in ${selectMs} ms`);
    await page.close();
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it.skipIf(!HAVE)(`the compatibility-matrix page opens offline${WHY}`, async () => {
    const file = join(TMP, "matrix.html");
    writeFileSync(file, matrixHtml(COMPATIBILITY as any, "agentnorm test"));
    const page = await ctx!.newPage();
    await page.goto(pathToFileURL(file).href);
    expect(await page.locator("#matrix tr").count()).toBe(COMPATIBILITY.canonicalEventTypes.length + 1);
    await page.screenshot({ path: join(ARTIFACTS, "matrix.png"), fullPage: false });
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  // Surfaces with no fixture in the repo: their dev recordings (../shared/recordings/dev/<surface>/), when present.
  const DEV_FOLDER: Record<string, [string, RegExp | undefined]> = { "cursor-cli": ["cursor", undefined], "opencode-run": ["opencode", /opencode-run/] };
  const covered = new Set(fixtures.map((f) => f.from));
  for (const s of SURFACE_NAMES.filter((s) => !covered.has(s))) {
    // dev recordings live in folders named by program, not always by surface
    const [folder, only] = DEV_FOLDER[s] ?? [s, undefined];
    const dev = devFolder(folder, `viewer ${s}`);
    const files = dev.list(".jsonl", ".ndjson").filter((f) => !only || only.test(f));
    if (!files.length) { it.skip(`${s}: no fixture in the repo and no dev recording at ${dev.dir} to open`, () => {}); continue; }
    it.skipIf(!HAVE)(`${s}: the dev recordings (${files.length}) open, and clicking the first card selects its event${WHY}`, async () => {
      let page: Page | undefined;
      for (const [i, f] of files.entries()) {
        const data = viewerData(loadInput(readFileSync(join(dev.dir, f), "utf8"), { from: s }));
        page = await open(`dev-${s}-${i}`, data, page);
        expect(await page.textContent("#tl-note"), f).toBe(`${data.events.length.toLocaleString("en")} events`);
        expect(await headerCounts(page), f).toEqual(expectedCounts(data));
        const card = firstBlock(data, (b) => b.seqs.length > 0);
        if (!card) continue;
        await page.locator(`.card[data-block="${card.id}"] > .hd`).first().click();
        expect(await page.getAttribute(".row.selected", "data-seq"), f).toBe(String(card.seqs[0]));
        if (i === 0) await page.screenshot({ path: join(ARTIFACTS, `viewer-${s}-dev.png`) });
      }
      await page?.close();
      expect(pageErrors).toEqual([]);
    }, 240_000);
  }
});
