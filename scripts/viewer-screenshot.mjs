#!/usr/bin/env node
/**
 * Retakes the README's viewer screenshot (docs/viewer.png): the README's `view` command on the approval session,
 * in headless Chromium (Debian's /usr/bin/chromium or $AGENTNORM_CHROMIUM, driven by playwright-core) at 1280×720,
 * light theme, the first command's card selected. Build first (npm run build).
 *   node scripts/viewer-screenshot.mjs [OUT.png]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const out = process.argv[2] ?? join(root, "docs/viewer.png");
const tmp = mkdtempSync(join(tmpdir(), "agentnorm-shot-"));
const html = join(tmp, "session.html");
const r = spawnSync(process.execPath, [join(root, "dist/src/cli/cli.js"), "view", "--from", "codex-app-server", "fixtures/codex-app-server/approval-session.ndjson", "-o", html, "--quiet"], { cwd: root, stdio: "inherit" });
if (r.status !== 0) process.exit(r.status ?? 1);
const { chromium } = await import("playwright-core");
const browser = await chromium.launch({ executablePath: process.env.AGENTNORM_CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 }, colorScheme: "light" });
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector("body[data-ready]");
  await page.locator("#tr-list .card.tool > .hd").first().click();
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  rmSync(tmp, { recursive: true, force: true });
}
