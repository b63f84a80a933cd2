/**
 * Sanitize → replay is a fixed point for every capture the test suite makes (issue 31, item 2): every provider
 * stream the suite captures — each recording in fixtures/recorded, the hand-made streams in fixtures/ (codex
 * app-server, claude-permission, cursor-sdk), the committed fixtures/replay — captured the ways the suite captures
 * (the tests' redaction options; the CLI's defaults with this machine's home, directory and login name; no
 * redaction, sanitized afterwards), plain and "spiked" (secrets, home paths and the login name appended to every
 * command, path, query and text, long enough that titles are cut inside them; one stream per surface and scenario): the sanitized capture replays
 * clean, sanitizing it again changes nothing, and no spiked secret is left in it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createCaptureWriter, readCapture, serializeRecords, type FixtureRecord } from "../src/capture/capture.js";
import type { RedactOptions } from "../src/capture/redact.js";
import { convertRecording, replayFixture, sanitizeCapture } from "../src/capture/replay.js";
import { cliRedactOptions } from "../src/cli/commands/capture.js";
import { detectInput } from "../src/cli/detect.js";
import { recordings } from "./support/recorded.js";

const repo = fileURLToPath(new URL("../", import.meta.url));
const TESTS: RedactOptions = { home: "/nonexistent-home", project: "/nonexistent-project", tmp: "/nonexistent-tmp" };
const CLI = cliRedactOptions();

/** Every provider stream the suite captures, with its surface. */
function streams(): { file: string; surface: string }[] {
  const out = recordings(repo).filter((r) => r.normalizable).map((r) => ({ file: r.file, surface: r.surface }));
  const walk = (dir: string): string[] => readdirSync(join(repo, dir)).flatMap((f) => (statSync(join(repo, dir, f)).isDirectory() ? walk(`${dir}/${f}`) : [`${dir}/${f}`]));
  for (const dir of ["fixtures/codex-app-server", "fixtures/claude-permission", "fixtures/cursor-sdk"]) {
    for (const file of walk(dir).filter((f) => /\.(nd)?jsonl?$/.test(f))) {
      const d = detectInput(readFileSync(join(repo, file), "utf8").split("\n").slice(0, 200));
      if (d.kind === "native" && d.surface) out.push({ file, surface: d.surface });
    }
  }
  return out;
}

const SECRET = `sk-ant-api03-${"Zq9".repeat(22)}`;
const PASSWORD = "Hx7!pQ2vW9zR";
/** Appended to every command, path, query and text: a home path, the login name, a key, a password flag. */
function spike(home: string, user: string): string {
  return ` ${"-".repeat(120)} ${home}/src/app/.env ${user} --password ${PASSWORD} key=${SECRET} cd ${home}/x`;
}
const SPIKED_KEYS = new Set(["command", "cmd", "description", "file_path", "filePath", "path", "query", "pattern", "url", "text", "delta", "thinking", "aggregatedOutput", "stdout", "title"]);
function spiked(text: string, home: string, user: string): string {
  const add = spike(home, user);
  const go = (v: any): any => {
    if (Array.isArray(v)) return v.map(go);
    if (v && typeof v === "object") { for (const k of Object.keys(v)) v[k] = typeof v[k] === "string" && SPIKED_KEYS.has(k) && v[k] !== "" ? v[k] + add : go(v[k]); return v; }
    return v;
  };
  return text.split("\n").map((l) => { if (!l.trim()) return l; try { return JSON.stringify(go(JSON.parse(l))); } catch { return l; } }).join("\n");
}

function fixedPoint(native: string, surface: string, capture: RedactOptions | false, sanitize: RedactOptions) {
  const w = createCaptureWriter({ provider: "test", source: surface, captureId: "fp", clock: () => 0, redact: capture });
  const cap = readCapture(convertRecording(native, surface, w));
  expect(cap.errors).toEqual([]);
  const fixture = sanitizeCapture(cap.records, { redact: sanitize });
  const res = replayFixture(fixture);
  const again = sanitizeCapture(fixture, { redact: sanitize });
  return { fixture, diff: res.diff, idempotent: serializeRecords(again) === serializeRecords(fixture) };
}

const ALL = streams();
/** One stream per surface and scenario for the spiked runs (the agents' variants of a scenario spike alike). */
const ONE_EACH = ALL.filter((s, i) => ALL.findIndex((t) => t.surface === s.surface && t.file.split("/").pop() === s.file.split("/").pop()) === i);
const WAYS: [string, RedactOptions | false, RedactOptions][] = [
  ["the tests' options", TESTS, TESTS],
  ["the CLI's defaults", CLI, CLI],
  ["unredacted, sanitized after", false, CLI],
];

describe("sanitize → replay is a fixed point for every capture the suite makes", () => {
  it(`covers ${ALL.length} streams of at least five surfaces`, () => {
    expect(new Set(ALL.map((s) => s.surface)).size).toBeGreaterThanOrEqual(5);
  });

  for (const [way, capture, sanitize] of WAYS) {
    it(`plain streams, captured with ${way}: replay clean, sanitize idempotent`, () => {
      const bad: string[] = [];
      for (const s of ALL) {
        const r = fixedPoint(readFileSync(join(repo, s.file), "utf8"), s.surface, capture, sanitize);
        if (r.diff) bad.push(`${s.file}: ${r.diff.slice(0, 600)}`);
        if (!r.idempotent) bad.push(`${s.file}: sanitizing twice changes it`);
      }
      expect(bad).toEqual([]);
    });

    it(`spiked streams (secrets and home paths in every command, path, text; titles cut inside them), captured with ${way}`, () => {
      const home = (sanitize.home ?? "/home/someone").replace(/\/+$/, "");
      const user = typeof sanitize.user === "string" ? sanitize.user : sanitize.user?.find((u) => u.length >= 3 && u !== "root") ?? "uqzxwvk";
      const bad: string[] = [];
      for (const s of ONE_EACH) {
        const r = fixedPoint(spiked(readFileSync(join(repo, s.file), "utf8"), home, user), s.surface, capture, sanitize);
        if (r.diff) bad.push(`${s.file}: ${r.diff.slice(0, 600)}`);
        if (!r.idempotent) bad.push(`${s.file}: sanitizing twice changes it`);
        const bytes = serializeRecords(r.fixture);
        for (const leak of [SECRET.slice(13, 30), PASSWORD, `${home}/src`]) if (bytes.includes(leak)) bad.push(`${s.file}: ${leak.slice(0, 12)}… left in the fixture`);
      }
      expect(bad).toEqual([]);
    });
  }

  it("the committed fixtures (fixtures/replay) sanitize to themselves and replay clean", () => {
    const dir = join(repo, "fixtures/replay");
    for (const f of readdirSync(dir).filter((x) => x.endsWith(".fixture.ndjson"))) {
      const text = readFileSync(join(dir, f), "utf8");
      const fixture = sanitizeCapture(readCapture(text).records, { redact: TESTS });
      expect(serializeRecords(fixture), f).toBe(text);
      expect(replayFixture(fixture as FixtureRecord[]).diff, f).toBe("");
    }
  });
});
