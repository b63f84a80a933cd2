/**
 * Input detection (src/cli/detect.ts) and what the CLI does with it: surfaces whose rows read the same messages are
 * told apart by their tables' `detect.fields`; a tie is said and refused without --from; a run in which not one line
 * is a message of the chosen surface exits 1 with one line; --quiet drops the FILE:LINE notes; view does not write
 * HTML to a terminal; an unknown option gets the closest one. Runs the built CLI (npm test builds it first).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { describeDetection, detectInput } from "../src/cli/detect.js";
import { devFolder, describeDev } from "./support/dev-recordings.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DIST = join(ROOT, "dist/src/cli/cli.js");
const TMP = mkdtempSync(join(tmpdir(), "agentnorm-detect-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const run = (args: string[], input?: string) => {
  const r = spawnSync(process.execPath, [DIST, ...args], { cwd: ROOT, input, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};
const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8").split("\n").filter((l) => l.trim() !== "");
const file = (name: string, lines: string[]) => {
  const f = join(TMP, name);
  writeFileSync(f, lines.join("\n") + "\n");
  return f;
};

/** A Claude Code transcript as ~/.claude/projects keeps it: the recorded lines without the recorder's wrapper. */
const transcript = (rel: string) => read(rel).map((l) => JSON.stringify(JSON.parse(l).message));
/** Its conversation lines only (the user and assistant lines: what an SDK stream has too). */
const conversation = (rel: string) => transcript(rel).filter((l) => /^\{[^{]*"type":"(user|assistant)"/.test(l) || ["user", "assistant"].includes(JSON.parse(l).type));

describe("detection: a Claude Code transcript is not taken for SDK messages", () => {
  it("a short transcript (a prompt and the failed model call's answer) is claude-transcript, told apart by its fields", () => {
    const lines = conversation("fixtures/recorded/claude-sdk/2.1.337/model-error.transcript.ndjson").slice(0, 3);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const d = detectInput(lines);
    expect(d.kind).toBe("native");
    expect(d.surface).toBe("claude-transcript");
    // the SDK table recognises them as well: the distinguishing fields decide, and the description says so
    const sdk = d.scores!.find((s) => s.surface === "claude-sdk")!;
    expect(sdk.recognised).toBe(d.scores![0].recognised);
    expect(d.scores![0].marked).toBeGreaterThan(sdk.marked);
    expect(describeDetection(d)).toContain("told apart by the fields each table names in detect.fields");
  });

  it("the same short SDK stream is claude-sdk", () => {
    const lines = read("fixtures/recorded/claude-sdk/2.1.337/model-error.ndjson").map((l) => JSON.stringify(JSON.parse(l).message));
    const d = detectInput(lines);
    expect([d.kind, d.surface]).toEqual(["native", "claude-sdk"]);
  });

  it("render of a short interrupted transcript ends its turn as the transcript says (not as a running SDK turn)", () => {
    // the conversation lines only: both tables recognise (and map) every one of them
    const lines = conversation("fixtures/recorded/claude-sdk/2.1.337/interrupt.transcript.ndjson");
    const f = file("interrupt.jsonl", lines);
    const auto = run(["render", "--json", f]);
    const given = run(["render", "--json", "--from", "claude-transcript", f]);
    expect(auto.status, auto.stderr).toBe(0);
    expect(auto.stderr).toContain("detected claude-transcript");
    expect(auto.stdout).toBe(given.stdout);
    // read as SDK messages, the same lines end differently: what a wrong guess cost
    const states = (json: string) => JSON.parse(json).sessions.flatMap((s: any) => s.turns.map((t: any) => t.state ?? t.status));
    expect(states(run(["render", "--json", "--from", "claude-sdk", f]).stdout)).not.toEqual(states(given.stdout));
  });

  it("rollout lines are codex-rollout (codex-eventmsg's wrappers read them too)", () => {
    const d = detectInput(read("fixtures/recorded/codex-exec/shell.rollout.ndjson"));
    expect([d.kind, d.surface]).toEqual(["native", "codex-rollout"]);
  });
});

describe("detection: a tie is said and refused without --from", () => {
  // permission callbacks: the claude-permission table and the claude-sdk table (which reads them too) recognise each
  // line alike, and no field tells them apart
  const lines = read("fixtures/claude-permission/approvals.ndjson");

  it("detectInput reports kind tie with both surfaces", () => {
    const d = detectInput(lines);
    expect(d.kind).toBe("tie");
    expect(d.scores!.slice(0, 2).map((s) => s.surface).sort()).toEqual(["claude-permission", "claude-sdk"]);
    expect(describeDetection(d)).toMatch(/^a tie between claude-permission and claude-sdk \(6 and 6 of 6 sampled line\(s\) recognised/);
  });

  for (const cmd of ["normalize", "render", "project", "view"]) {
    it(`${cmd}: exit 1, one line naming the tie; --from decides`, () => {
      const f = file(`tie-${cmd}.ndjson`, lines);
      const out = cmd === "view" ? ["-o", join(TMP, "tie.html")] : [];
      const r = run([cmd, f, ...out]);
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split("\n")).toEqual([`agentnorm: ${f}: cannot tell the surface: a tie between claude-permission and claude-sdk (6 and 6 of 6 sampled line(s) recognised; nothing in them tells the two apart); give --from SURFACE`]);
      expect(run([cmd, f, "--from", "claude-permission", ...out]).status).toBe(0);
    });
  }
});

describe("a run where no line is a message of the surface", () => {
  const native = read("fixtures/codex-app-server/approval-session.ndjson");

  it("exits 1 with one line after what the input looks like, no FILE:LINE notes", () => {
    const f = file("wrong.ndjson", native);
    const r = run(["render", "--from", "opencode", f]);
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("the input looks like codex-app-server native messages");
    expect(lines[1]).toBe(`agentnorm: ${f}: none of the ${native.length} line(s) is a message of opencode (check --from)`);
  });

  it("a run where some lines are the surface's keeps exit 0 and shows the notes of the others", () => {
    const f = file("mixed.ndjson", ['{"not":"a message"}', ...native]);
    const r = run(["render", "--from", "codex-app-server", f]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`${f}:1: `);
  });
});

describe("CLI details", () => {
  const lines = ['{"not":"a message"}', ...read("fixtures/codex-app-server/approval-session.ndjson")];

  for (const cmd of ["render", "normalize", "project"]) {
    it(`${cmd} --quiet prints no per-line notes (without it: FILE:LINE)`, () => {
      const f = file(`quiet-${cmd}.ndjson`, lines);
      expect(run([cmd, "--from", "codex-app-server", f]).stderr).toContain(`${f}:1: `);
      const q = run([cmd, "--from", "codex-app-server", "--quiet", f]);
      expect(q.status).toBe(0);
      expect(q.stderr).toBe("");
    });
  }

  it("an unknown option names the closest one; a far one gets no guess", () => {
    expect(run(["render", "--quite", "x"]).stderr).toContain("unknown option --quite; did you mean --quiet?");
    expect(run(["view", "--titel", "x"]).stderr).toContain("unknown option --titel; did you mean --title?");
    expect(run(["normalize", "--form", "x"]).stderr).toContain("unknown option --form; did you mean --from?");
    const far = run(["render", "--verbose", "x"]);
    expect(far.status).toBe(2);
    expect(far.stderr).toContain("unknown option --verbose\n");
  });

  it("view refuses to write the page to a terminal when no -o is given (exit 2, one line)", () => {
    const script = spawnSync("script", ["--version"], { encoding: "utf8" });
    if (script.status !== 0) return expect.fail("`script` (util-linux) is needed to give the CLI a terminal");
    const f = join(ROOT, "fixtures/codex-app-server/approval-session.ndjson");
    // stdout a pseudo-terminal (script), stdin the recording
    const r = spawnSync("script", ["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(DIST)} view - < ${JSON.stringify(f)}`, "/dev/null"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stdout.trim()).toBe("agentnorm: <stdout>: is a terminal: view writes an HTML page; give -o FILE (or -o - to write it to stdout anyway)");
    expect(r.stdout).not.toContain("<html");
    // not a terminal: the page goes to stdout
    const piped = run(["view", "-", "--quiet"], readFileSync(f, "utf8"));
    expect(piped.status).toBe(0);
    expect(piped.stdout).toMatch(/^<!doctype html>/i);
  });
});

// The shared third-party recordings (when present): every Claude Code transcript is detected as one.
const dev = devFolder("claude-transcript");
describeDev("detection on the dev recordings: Claude Code transcripts", dev.present, dev.dir, () => {
  for (const name of dev.list(".jsonl")) {
    it(name, () => {
      const d = detectInput(readFileSync(join(dev.dir, name), "utf8").split("\n"));
      expect([d.kind, d.surface]).toEqual(["native", "claude-transcript"]);
    });
  }
});
