/**
 * The viewer page in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core; never a
 * downloaded browser). For a fixture of each surface: open the generated file via file://, click a tool card and
 * check that the timeline and native panes follow, check the badge counts, save a screenshot to test-artifacts/.
 * The layout at 1400 and 800 px in the light and the dark theme (pane boxes: inside the window, not overlapping,
 * not clipped; screenshots saved), the splitters, the theme toggle, search and filters (timeline and transcript),
 * short ids, request and permission cards, retrying errors and Markdown.
 * Without Chromium every test here is skipped, visibly, with the reason.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BrowserContext, Page } from "playwright-core";
import { SURFACE_NAMES } from "../generated/surfaces.gen.js";
import { COMPATIBILITY } from "./support/compatibility.js";
import { loadInput, viewerData } from "../src/view/data.js";
import { matrixHtml, viewerHtml } from "../src/view/html.js";
import { PROBLEM_KINDS, type TranscriptBlock, type ViewerData, type ViewerEvent } from "../src/view/types.js";
import { devFolder } from "./support/dev-recordings.js";
import { createNormalizer } from "../src/normalize/normalizer.js";
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

/** A new tab whose script errors fail the test that opened it. */
async function newPage(): Promise<Page> {
  const page = await ctx!.newPage();
  page.on("pageerror", (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(`${page.url()}: console: ${m.text()}`); });
  return page;
}
/** Write the page, open it via file:// (in `reuse`, or a new tab), wait until the script says it is ready. */
async function open(name: string, data: ViewerData, reuse?: Page): Promise<Page> {
  const file = join(TMP, `${name}.html`);
  writeFileSync(file, viewerHtml(data));
  const page = reuse ?? await newPage();
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

  // ───────────────────────── layout, themes and controls ─────────────────────────
  interface Box { x: number; y: number; w: number; h: number }
  const PANES = ["header", "#transcript", "#split-1", "#timeline", "#split-2", "#native"];
  async function boxes(page: Page, sels: string[]): Promise<Record<string, Box>> {
    return page.evaluate((ss) => Object.fromEntries(ss.map((s) => {
      const r = document.querySelector(s)!.getBoundingClientRect();
      return [s, { x: r.left, y: r.top, w: r.width, h: r.height }];
    })), sels);
  }
  const overlap = (a: Box, b: Box) => Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  const inside = (a: Box, b: Box, tol = 0.5) => a.x >= b.x - tol && a.y >= b.y - tol && a.x + a.w <= b.x + b.w + tol && a.y + a.h <= b.y + b.h + tol;
  /** Relative luminance of a computed rgb() colour. */
  const luminance = (rgb: string) => {
    const [r, g, b] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => Number(v) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  async function bg(page: Page, sel: string): Promise<number> {
    return luminance(await page.$eval(sel, (e) => getComputedStyle(e).backgroundColor));
  }
  /** The approval session as a canonical stream with random ids (they share a long prefix). */
  function randomIdStream(): string {
    const n = createNormalizer({ surface: "codex-app-server", includeRaw: true });
    const evs = [...read("fixtures/codex-app-server/approval-session.ndjson").split("\n").filter(Boolean).flatMap((l) => n.pushLine(l)), ...n.end()];
    return ndjson(evs.map((e) => JSON.parse(JSON.stringify(e))));
  }
  async function expectLayout(page: Page, w: number, label: string): Promise<Record<string, Box>> {
    const b = await boxes(page, PANES);
    const view = { x: 0, y: 0, w, h: 900 };
    for (const s of PANES) {
      expect(inside(b[s], view), `${label}: ${s} inside the window`).toBe(true);
      for (const t of PANES) if (s < t) expect(overlap(b[s], b[t]), `${label}: ${s} and ${t} overlap`).toBeLessThan(1);
    }
    for (const s of ["#transcript", "#timeline", "#native"]) {
      expect(b[s].w, `${label}: ${s} width`).toBeGreaterThanOrEqual(160);
      expect(b[s].h, `${label}: ${s} height`).toBeGreaterThanOrEqual(120);
      expect(b[s].y, `${label}: ${s} below the header`).toBeGreaterThanOrEqual(b.header.y + b.header.h - 0.5);
    }
    // Nothing is cut off: no page-level horizontal scrolling, the header's parts and the filter controls stay
    // inside their boxes, and the transcript and native panes wrap instead of scrolling sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth && document.body.scrollWidth <= window.innerWidth), `${label}: page wider than the window`).toBe(true);
    const parts = await boxes(page, ["#title", "#meta", "#counts", "#theme"]);
    for (const [k, v] of Object.entries(parts)) expect(inside(v, b.header), `${label}: ${k} inside the header`).toBe(true);
    const controls = await page.$$eval("#filters > *", (es) => es.map((e) => { const r = e.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; }));
    expect(controls.length).toBe(6);
    for (const c of controls) expect(inside(c, b["#timeline"]), `${label}: a filter control outside the timeline pane`).toBe(true);
    for (const sc of ["#tr-scroll", "#native .scroll"]) expect(await page.$eval(sc, (e) => e.scrollWidth <= e.clientWidth + 1), `${label}: ${sc} scrolls sideways`).toBe(true);
    const rowW = await page.$eval(".row", (e) => e.getBoundingClientRect().right);
    expect(rowW).toBeLessThanOrEqual(b["#timeline"].x + b["#timeline"].w + 0.5);
    return b;
  }

  for (const w of [1400, 800]) {
    for (const scheme of ["light", "dark"] as const) {
      it.skipIf(!HAVE)(`${w} px, ${scheme} theme: the panes fit the window, none overlaps or is clipped (screenshot)${WHY}`, async () => {
        const data = viewerData(loadInput(randomIdStream()));
        const page = await newPage();
        await page.setViewportSize({ width: w, height: 900 });
        await page.emulateMedia({ colorScheme: scheme });
        const p = await open(`viewer-layout-${w}-${scheme}`, data, page);
        // Select the command whose approval gates it, so that every pane has content.
        const tool = firstBlock(data, (b) => b.kind === "tool" && !!b.children?.some((c) => c.kind === "permission"))!;
        await p.locator(`.card[data-block="${tool.id}"] > .hd`).first().click();
        const b = await expectLayout(p, w, `${w}/${scheme}`);
        if (w >= 1400) {
          // three columns: transcript | timeline | native
          expect(b["#transcript"].x + b["#transcript"].w).toBeLessThanOrEqual(b["#timeline"].x + 0.5);
          expect(b["#timeline"].x + b["#timeline"].w).toBeLessThanOrEqual(b["#native"].x + 0.5);
          expect(Math.abs(b["#timeline"].y - b["#native"].y)).toBeLessThan(1);
        } else {
          // the timeline above the native pane, both right of the transcript
          expect(b["#timeline"].y + b["#timeline"].h).toBeLessThanOrEqual(b["#native"].y + 0.5);
          expect(Math.abs(b["#timeline"].x - b["#native"].x)).toBeLessThan(1);
          expect(b["#transcript"].x + b["#transcript"].w).toBeLessThanOrEqual(b["#timeline"].x + 0.5);
          expect(b["#transcript"].h).toBeGreaterThan(b["#timeline"].h + b["#native"].h);
        }
        // The theme: dark panes on a dark system, light ones on a light system.
        for (const sel of ["#transcript", "#native", "#timeline"]) {
          const l = await bg(p, sel);
          if (scheme === "dark") expect(l, sel).toBeLessThan(0.05);
          else expect(l, sel).toBeGreaterThan(0.85);
        }
        const fg = luminance(await p.$eval("#transcript .card .title", (e) => getComputedStyle(e).color));
        if (scheme === "dark") expect(fg).toBeGreaterThan(0.5);
        else expect(fg).toBeLessThan(0.1);
        await p.screenshot({ path: join(ARTIFACTS, `viewer-layout-${w}-${scheme}.png`) });
        await p.close();
        expect(pageErrors).toEqual([]);
      });
    }
  }

  it.skipIf(!HAVE)(`the pane boundaries drag (mouse and keys) at 1400 and 800 px, and the layout still holds${WHY}`, async () => {
    const data = viewerData(loadInput(randomIdStream()));
    const page = await open("viewer-resize", data);
    // an event selected: the native pane is open (with nothing selected it folds to a strip; see below)
    await page.locator("#tr-list .card > .hd").first().click();
    for (const w of [1400, 800]) {
      await page.setViewportSize({ width: w, height: 900 });
      const drag = async (sel: string, dx: number, dy: number) => {
        const s = (await boxes(page, [sel]))[sel];
        await page.mouse.move(s.x + s.w / 2, s.y + s.h / 2);
        await page.mouse.down();
        await page.mouse.move(s.x + s.w / 2 + dx / 2, s.y + s.h / 2 + dy / 2);
        await page.mouse.move(s.x + s.w / 2 + dx, s.y + s.h / 2 + dy);
        await page.mouse.up();
      };
      const before = await boxes(page, PANES);
      await drag("#split-1", -120, 0);
      const after = await boxes(page, PANES);
      expect(after["#transcript"].w, `${w}: transcript narrower by the drag`).toBeCloseTo(before["#transcript"].w - 120, -1);
      expect(after["#timeline"].w, `${w}: timeline wider`).toBeGreaterThan(before["#timeline"].w + 100);
      await expectLayout(page, w, `${w} after dragging`);
      if (w >= 1400) {
        await drag("#split-2", 80, 0);
        const b2 = await boxes(page, PANES);
        expect(b2["#timeline"].w).toBeCloseTo(after["#timeline"].w + 80, -1);
        expect(b2["#native"].w).toBeCloseTo(after["#native"].w - 80, -1);
      } else {
        await drag("#split-2", 0, 100);
        const b2 = await boxes(page, PANES);
        expect(b2["#timeline"].h, "800: the timeline taller").toBeCloseTo(after["#timeline"].h + 100, -1);
        expect(b2["#native"].h).toBeCloseTo(after["#native"].h - 100, -1);
      }
      // A drag can not push a pane out: far to the right, every pane keeps its minimum.
      await drag("#split-1", 2000, 0);
      await expectLayout(page, w, `${w} after an extreme drag`);
      // Keys: the focused splitter moves by 20 px per arrow.
      const k0 = (await boxes(page, ["#transcript"]))["#transcript"].w;
      await page.focus("#split-1");
      await page.keyboard.press("ArrowLeft");
      expect((await boxes(page, ["#transcript"]))["#transcript"].w).toBeCloseTo(k0 - 20, 0);
      // Double-click resets.
      await page.dblclick("#split-1");
      await page.dblclick("#split-2");
      const reset = await boxes(page, PANES);
      expect(reset["#transcript"].w).toBeCloseTo(before["#transcript"].w, 0);
    }
    // Boundaries set at 1400 px that no longer fit a narrower window give way.
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.focus("#split-1");
    for (let i = 0; i < 10; i++) await page.keyboard.press("Shift+ArrowRight");
    await page.focus("#split-2");
    for (let i = 0; i < 4; i++) await page.keyboard.press("Shift+ArrowRight");
    await page.setViewportSize({ width: 1150, height: 900 });
    await expectLayout(page, 1150, "1150 after boundaries set at 1400");
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`at 1280 px: with nothing selected the native pane folds to a strip and the others take its width; "1 turn"; options read as text, not buttons${WHY}`, async () => {
    const data = viewerData(loadInput(read("fixtures/codex-app-server/approval-session.ndjson"), { from: "codex-app-server" }));
    expect(data.transcript.turns).toHaveLength(1);
    const page = await newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await open("viewer-fold", data, page);
    const folded = await boxes(page, PANES);
    expect(folded["#native"].w, "the empty native pane is a strip").toBeLessThanOrEqual(40);
    expect(folded["#transcript"].w + folded["#timeline"].w).toBeGreaterThan(1280 - 60);
    expect(await page.isVisible("#native-body")).toBe(false);
    // selecting an event opens it
    await page.locator("#tr-list .card.tool > .hd").first().click();
    await expectLayout(page, 1280, "1280 selected");
    expect((await boxes(page, ["#native"]))["#native"].w).toBeGreaterThanOrEqual(160);
    expect(await page.isVisible("#native-json")).toBe(true);
    // the header: one turn, singular
    expect(await page.textContent("#meta")).toMatch(/· 1 turn(?!s)/);
    // option chips: labels (Codex gives none: the canonical decision's words), no border or background of a button
    const opt = page.locator(".opt").first();
    expect(await opt.textContent()).toBe(data.transcript.turns[0].blocks.flatMap((b) => b.children ?? []).find((c) => c.options?.length)!.options![0].label);
    const style = await opt.evaluate((e) => { const c = getComputedStyle(e); return { border: c.borderTopStyle, bg: c.backgroundColor, cursor: c.cursor }; });
    expect(style.border).toBe("none");
    expect(style.bg).toBe("rgba(0, 0, 0, 0)");
    expect(style.cursor).not.toBe("pointer");
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`the theme toggle overrides the system's preference: auto → light → dark${WHY}`, async () => {
    const data = viewerData(loadInput(randomIdStream()));
    const page = await newPage();
    await page.emulateMedia({ colorScheme: "dark" });
    await open("viewer-theme", data, page);
    expect(await page.textContent("#theme")).toBe("theme: auto");
    expect(await bg(page, "#transcript")).toBeLessThan(0.05);
    await page.click("#theme");
    expect(await page.textContent("#theme")).toBe("theme: light");
    expect(await page.getAttribute("html", "data-theme")).toBe("light");
    expect(await bg(page, "#transcript")).toBeGreaterThan(0.85);
    await page.emulateMedia({ colorScheme: "light" });
    await page.click("#theme");
    expect(await page.textContent("#theme")).toBe("theme: dark");
    expect(await bg(page, "#transcript")).toBeLessThan(0.05);
    await page.click("#theme");
    expect(await page.textContent("#theme")).toBe("theme: auto");
    expect(await page.getAttribute("html", "data-theme")).toBeNull();
    expect(await bg(page, "#transcript")).toBeGreaterThan(0.85);
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`random ids show as distinct short labels (itm#4), the full id in the tooltip and the native pane${WHY}`, async () => {
    const data = viewerData(loadInput(randomIdStream()));
    const page = await open("viewer-short-ids", data);
    const pairs = await page.$$eval(".row .ids .id", (es) => es.map((e) => [e.getAttribute("title")!, e.textContent!]));
    const byId = new Map<string, Set<string>>();
    const byLabel = new Map<string, Set<string>>();
    for (const [id, label] of pairs) {
      (byId.get(id) ?? byId.set(id, new Set()).get(id)!).add(label);
      (byLabel.get(label) ?? byLabel.set(label, new Set()).get(label)!).add(id);
    }
    const items = [...byId.keys()].filter((id) => id.startsWith("itm_"));
    expect(items.length, "several items on screen").toBeGreaterThan(3);
    for (const [id, ls] of byId) {
      expect(ls.size, id).toBe(1);
      expect([...ls][0].length, id).toBeLessThanOrEqual(12);
      if (id.length > 12) expect([...ls][0], id).toMatch(/^[a-z]+#\d+$/);
    }
    for (const [label, ids] of byLabel) expect(ids.size, `label ${label} names one id`).toBe(1);
    // The short label filters too; the native pane shows the full id.
    const [someId, itsLabel] = pairs.find(([id]) => id.startsWith("itm_"))!;
    await page.fill("#f-item", itsLabel);
    const want = data.events.filter((e) => [e.itemId, e.requestId, e.parentId].includes(someId)).map((e) => String(e.sequence));
    await expect.poll(() => page.$$eval(".row", (rs) => rs.map((r) => (r as HTMLElement).dataset.seq))).toEqual(want);
    await page.click(".row");
    expect(await page.textContent("#native-body")).toContain(someId);
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`a retrying error is a warning (badge, card, count); the final one an error${WHY}`, async () => {
    const data = viewerData(loadInput(read("fixtures/codex-app-server/error-and-interrupt.ndjson"), { from: "codex-app-server" }));
    const page = await open("viewer-retry", data);
    const errs = data.events.filter((e) => e.type === "runtime.error");
    const retry = errs.find((e) => (e.payload as any).detail?.willRetry === true)!;
    const final = errs.find((e) => (e.payload as any).detail?.willRetry === false)!;
    const badge = async (seq: number) => page.$$eval(`.row[data-seq="${seq}"] .badge`, (bs) => bs.map((b) => b.textContent));
    expect(await badge(retry.sequence)).toEqual(["warning"]);
    expect(await badge(final.sequence)).toEqual(["error"]);
    const card = page.locator(".card.notice.retrying");
    expect(await card.count()).toBe(1);
    expect(await card.textContent()).toContain((retry.payload as any).message);
    expect(await card.locator(".kind").textContent()).toBe("warning · retrying");
    expect(await bg(page, ".card.notice.retrying")).toBeGreaterThan(0.6); // the warning tint, not the error one
    expect(await headerCounts(page)).toEqual(expectedCounts(data));
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`requests are named for what they are; a permission shows its options and decision before the output it gates${WHY}`, async () => {
    const data = viewerData(loadInput(read("fixtures/codex-app-server/approval-session.ndjson"), { from: "codex-app-server" }));
    const page = await open("viewer-permission", data);
    const tool = firstBlock(data, (b) => b.kind === "tool" && !!b.output && !!b.children?.some((c) => c.kind === "permission"))!;
    const perm = tool.children!.find((c) => c.kind === "permission")!;
    const card = page.locator(`.card[data-block="${tool.id}"]`);
    const gate = card.locator(`.gates > .card[data-block="${perm.id}"]`);
    expect(await gate.count()).toBe(1);
    const out = card.locator(":scope > .body > .lbl", { hasText: /^output$/ });
    const [g, o] = [await gate.boundingBox(), await out.boundingBox()];
    expect(g!.y + g!.height, "the permission ends above the output").toBeLessThanOrEqual(o!.y);
    expect(await gate.locator(".opt").evaluateAll((es) => es.map((e) => (e as HTMLElement).dataset.decision))).toEqual(perm.options!.map((o) => o.decision));
    expect(await gate.locator(".opt.chosen").getAttribute("data-decision")).toBe(perm.decision);
    // the decision in words, as its option reads; the canonical id on the element
    expect(await gate.locator(".decision .dec").getAttribute("data-decision")).toBe(perm.decision);
    expect(await gate.locator(".decision .dec").textContent()).toBe(perm.options!.find((o) => o.decision === perm.decision)!.label);
    // The provider's arguments are folded away, not dumped as the card's input.
    expect(await gate.locator("details.args").count()).toBe(1);
    expect(await gate.locator("details.args").getAttribute("open")).toBeNull();
    await page.close();

    // Host tool calls and auth refreshes are requests, not permissions.
    let seq = 0;
    const ev = (type: string, payload: unknown, extra: Record<string, unknown> = {}) => ({ eventId: `evt_${++seq}`, sequence: seq, type, provider: "codex", sessionId: "ses_1", turnId: "trn_1", createdAt: "2026-01-01T00:00:00.000Z", payload, ...extra });
    const stream = [
      ev("turn.started", {}),
      ev("request.opened", { requestType: "dynamic_tool_call", detail: "lookup_ticket", args: { tool: "lookup_ticket", arguments: { id: 42 } } }, { requestId: "req_1" }),
      ev("request.resolved", { requestType: "dynamic_tool_call", decision: "completed" }, { requestId: "req_1" }),
      ev("request.opened", { requestType: "auth_tokens_refresh", detail: "unauthorized" }, { requestId: "req_2" }),
      ev("request.resolved", { requestType: "auth_tokens_refresh", decision: "completed" }, { requestId: "req_2" }),
      ev("turn.completed", { state: "completed" }),
    ];
    const p2 = await open("viewer-requests", viewerData(loadInput(ndjson(stream))));
    expect(await p2.locator(".card.permission").count()).toBe(0);
    expect(await p2.$$eval(".card.request .kind", (es) => es.map((e) => e.textContent))).toEqual(["request · host tool call", "request · auth refresh"]);
    expect(await p2.textContent(`.row[data-seq="2"] .sum`)).toBe("host tool call · lookup_ticket");
    expect(await p2.textContent(`.row[data-seq="4"] .sum`)).toBe("auth refresh · unauthorized");
    await p2.close();
    expect(pageErrors).toEqual([]);
  });

  /** Every top-level card in the transcript has an event among `seqs` (itself or a nested card). */
  async function transcriptShows(page: Page, data: ViewerData): Promise<{ cards: string[]; subtree: Map<string, number[]> }> {
    const subtree = new Map<string, number[]>();
    const walk = (b: TranscriptBlock): number[] => { const s = [...b.seqs, ...(b.children ?? []).flatMap(walk)]; subtree.set(b.id, s); return s; };
    for (const b of [...data.transcript.preamble, ...data.transcript.turns.flatMap((t) => t.blocks)]) walk(b);
    const cards = await page.$$eval("#tr-list > .card", (es) => es.map((e) => (e as HTMLElement).dataset.block!));
    return { cards, subtree };
  }

  it.skipIf(!HAVE)(`search and the multi-select type filter filter the timeline and the transcript; an empty result says so${WHY}`, async () => {
    const data = viewerData(loadInput(read("fixtures/codex-app-server/approval-session.ndjson"), { from: "codex-app-server" }));
    const page = await open("viewer-filters", data);
    const allCards = (await transcriptShows(page, data)).cards.length;
    const rowSeqs = () => page.$$eval(".row", (rs) => rs.map((r) => Number((r as HTMLElement).dataset.seq)));

    // Free text: case-insensitive, over the type, the ids and the payload.
    const tool = firstBlock(data, (b) => b.kind === "tool" && !!b.title)!;
    const q = String(tool.title).slice(0, 12).toUpperCase();
    const hay = (e: ViewerEvent) => [e.type, e.threadId, e.turnId, e.itemId, e.requestId, e.parentId, JSON.stringify(e.payload)].join("\n").toLowerCase();
    const want = data.events.filter((e) => hay(e).includes(q.toLowerCase())).map((e) => e.sequence);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(30);
    await page.fill("#f-search", q);
    await page.press("#f-search", "Enter");
    await expect.poll(rowSeqs).toEqual(want);
    expect(await page.textContent("#tl-note")).toBe(`${want.length} of ${data.events.length} events`);
    let shown = await transcriptShows(page, data);
    expect(shown.cards.length).toBeGreaterThan(0);
    expect(shown.cards.length).toBeLessThan(allCards);
    for (const c of shown.cards) expect(shown.subtree.get(c)!.some((s) => want.includes(s)), c).toBe(true);
    expect(shown.cards).toContain(tool.id);
    await page.fill("#f-search", "");
    await page.press("#f-search", "Enter");
    await expect.poll(() => page.locator(".row").count()).toBeGreaterThan(want.length);

    // Several types at once.
    const types = ["request.opened", "request.resolved"];
    await page.click("#f-types-label");
    for (const t of types) await page.check(`#f-types-menu input[value="${t}"]`);
    expect(await page.textContent("#f-types-label")).toBe("2 types");
    // The open menu floats inside the window, labels uncut, even at 800 px.
    await page.setViewportSize({ width: 800, height: 900 });
    await expect.poll(() => page.$eval("#f-types", (e) => (e as HTMLDetailsElement).open), { message: "a resize closes the menu" }).toBe(false);
    await page.click("#f-types-label");
    expect(await page.isVisible("#f-types-menu")).toBe(true);
    await expect.poll(async () => inside((await boxes(page, ["#f-types-menu"]))["#f-types-menu"], { x: 0, y: 0, w: 800, h: 900 }), { message: "the type menu inside the window" }).toBe(true);
    expect(await page.$eval("#f-types-menu", (e) => e.scrollWidth <= e.clientWidth + 1), "type names cut off").toBe(true);
    expect(await page.isVisible(`#f-types-menu input[value="turn.started"]`)).toBe(true);
    const typed = data.events.filter((e) => types.includes(e.type)).map((e) => e.sequence);
    await expect.poll(rowSeqs).toEqual(typed);
    shown = await transcriptShows(page, data);
    expect(shown.cards.length).toBeGreaterThan(0);
    for (const c of shown.cards) expect(shown.subtree.get(c)!.some((s) => typed.includes(s)), c).toBe(true);
    expect(await page.locator("#tr-list .turn").count()).toBeGreaterThan(0); // the turns they are in stay as headings
    await page.screenshot({ path: join(ARTIFACTS, "viewer-filter-types.png") });
    await page.click("#f-types-menu [data-types]");
    await expect.poll(() => page.textContent("#tl-note")).toBe(`${data.events.length} events`);
    expect((await transcriptShows(page, data)).cards.length).toBe(allCards);

    // Nothing matches: the timeline says so and offers to clear; so does the transcript.
    await page.click("#transcript h2"); // closes the type menu
    await page.fill("#f-search", "no-such-text-zzz");
    await page.press("#f-search", "Enter");
    await expect.poll(() => page.isVisible("#tl-empty")).toBe(true);
    expect(await page.textContent("#tl-empty")).toContain("No events text “no-such-text-zzz”");
    expect(await page.textContent("#tr-more")).toBe("no transcript cards match the filters");
    expect(await page.locator("#tr-list > *").count()).toBe(0);
    await page.click("#tl-empty [data-clear]");
    expect(await page.isVisible("#tl-empty")).toBe(false);
    expect(await page.inputValue("#f-search")).toBe("");
    expect(await page.textContent("#tl-note")).toBe(`${data.events.length} events`);
    // A header count of zero: the same message, naming the problem kind.
    const zero = PROBLEM_KINDS.find((k) => k !== "violation" && !data.problems.some((p) => p.kind === k))!;
    await page.click(`#count-${zero}`);
    expect(await page.textContent("#tl-empty")).toContain(`No events with ${zero}s`);
    expect(await page.getAttribute(`#count-${zero}`, "class")).toContain("active");
    await page.click(`#count-${zero}`);
    expect(await page.isVisible("#tl-empty")).toBe(false);
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`message text is rendered as Markdown, and HTML in it shows as text${WHY}`, async () => {
    let seq = 0;
    const ev = (type: string, payload: unknown, extra: Record<string, unknown> = {}) => ({ eventId: `evt_${++seq}`, sequence: seq, type, provider: "codex", sessionId: "ses_1", turnId: "trn_1", createdAt: "2026-01-01T00:00:00.000Z", payload, ...extra });
    const text = "Done: **all tests pass**.\n\n- `npm test`\n- <img src=x onerror=\"document.title='pwned'\">\n\n```sh\necho <b>hi</b>\n```\n\n[site](javascript:alert(1))";
    const stream = [
      ev("turn.started", {}),
      ev("item.started", { itemType: "assistant_message", status: "inProgress" }, { itemId: "itm_1" }),
      ev("content.delta", { streamKind: "assistant_text", delta: text }, { itemId: "itm_1" }),
      ev("item.completed", { itemType: "assistant_message", status: "completed" }, { itemId: "itm_1" }),
      ev("turn.completed", { state: "completed" }),
    ];
    const page = await open("viewer-markdown", viewerData(loadInput(ndjson(stream))));
    const md = page.locator(".card.text .md");
    expect(await md.locator("strong").textContent()).toBe("all tests pass");
    expect(await md.locator("li").count()).toBe(2);
    expect(await md.locator("li code").textContent()).toBe("npm test");
    expect(await md.locator("pre.md-code").textContent()).toBe("echo <b>hi</b>");
    expect(await md.locator("img, b, a, script").count()).toBe(0);
    expect(await md.textContent()).toContain(`<img src=x onerror="document.title='pwned'">`);
    expect(await page.title()).not.toBe("pwned");
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`a capped page says so above its panes (what it shows, what it left out); an uncapped one shows no notice${WHY}`, async () => {
    const text = read("fixtures/codex-app-server/approval-session.ndjson");
    const whole = await open("viewer-uncapped", viewerData(loadInput(text, { from: "codex-app-server" })));
    expect(await whole.isVisible("#cut")).toBe(false);
    await whole.close();
    // ten turns; the page keeps the last three
    const T = "019a0000-0000-7000-8000-00000000aaaa";
    const lines = [{ method: "thread/started", params: { thread: { id: T } } }];
    for (let i = 0; i < 10; i++) {
      const turnId = `turn-${i}`;
      lines.push({ method: "turn/started", params: { threadId: T, turn: { id: turnId, items: [], status: "inProgress" } } } as any);
      lines.push({ method: "item/completed", params: { threadId: T, turnId, completedAtMs: 2, item: { type: "agentMessage", id: `m-${i}`, text: `answer ${i}` } } } as any);
      lines.push({ method: "turn/completed", params: { threadId: T, turn: { id: turnId, items: [], status: "completed" } } } as any);
    }
    const data = viewerData(loadInput(ndjson(lines), { from: "codex-app-server", maxTurns: 3 }));
    const cut = data.meta.cut!;
    expect(cut.turns).toEqual({ total: 10, shown: 3 });
    const page = await open("viewer-capped", data);
    expect(await page.isVisible("#cut")).toBe(true);
    const notice = (await page.textContent("#cut"))!;
    expect(notice).toContain("only part of the stream is shown (cap: 3 turn(s)): the last 3 of 10 turn(s)");
    expect(notice).toContain(`left out: 7 turn(s), ${cut.left.events.toLocaleString("en")} event(s)`);
    // turns keep their numbers in the whole stream
    expect(await page.locator("#tr-list .turn").first().textContent()).toMatch(/^turn 8 /);
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.skipIf(!HAVE)(`a capture's header states what \`capture check\` counts${WHY}`, async () => {
    const f = "fixtures/replay/codex-app-server-approval.fixture.ndjson";
    const data = viewerData(loadInput(read(f)));
    const c = data.meta.capture!;
    const page = await open("viewer-capture-counts", data);
    expect(await page.textContent("#meta")).toContain(`capture check: ${c.kind}, ${c.records} of ${c.lines} line(s) valid (native_in ${c.stages.native_in}, normalized_out ${c.stages.normalized_out}, legacy_out ${c.stages.legacy_out}), ${c.redactions} redaction(s), ${c.problems} problem(s)`);
    expect((await headerCounts(page)).redaction).toBe(String(c.redactions));
    await page.close();
    expect(pageErrors).toEqual([]);
  });
});
