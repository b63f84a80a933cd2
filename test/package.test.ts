/**
 * The package as a user gets it: `npm pack` of the built repository, installed (offline: the package has no
 * dependencies) into three fresh apps — an ES module app, a CommonJS app and a strict TypeScript app compiled with
 * skipLibCheck: false (ESM and CommonJS flavours) — each of which runs. Also checks what the tarball holds.
 * Needs `npm run build` first (npm test builds).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const FIXTURE = readFileSync(join(ROOT, "fixtures/codex-app-server/approval-session.ndjson"), "utf8");
const built = existsSync(join(ROOT, "dist/pkg/index.js"));

let work: string;
let tarball: string;
let files: { path: string; size: number }[] = [];
let packSize = 0;
let unpackedSize = 0;

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_cache: join(work, ".npm-cache"), npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" } });
}

function app(name: string, pkg: object, sources: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", private: true, ...pkg }, null, 2));
  for (const [f, text] of Object.entries(sources)) writeFileSync(join(dir, f), text);
  writeFileSync(join(dir, "session.ndjson"), FIXTURE);
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], dir);
  return dir;
}

describe.skipIf(!built)("the packed package", () => {
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "agentnorm-pack-"));
    const out = JSON.parse(run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], ROOT));
    tarball = join(work, out[0].filename);
    files = out[0].files;
    packSize = out[0].size;
    unpackedSize = out[0].unpackedSize;
  }, 120_000);
  afterAll(() => { if (work) rmSync(work, { recursive: true, force: true }); });

  it("holds the bundles, declarations, schemas and docs; the matrix once; no tsc JavaScript, tests or sources", () => {
    const paths = files.map((f) => f.path);
    for (const p of ["dist/pkg/index.js", "dist/pkg/index.js.map", "dist/pkg/accumulator.js", "dist/pkg/surfaces/claude-sdk.js", "dist/pkg/cjs/index.cjs", "dist/pkg/cli.js", "dist/src/index.d.ts", "generated/canonical.schema.json", "generated/compatibility.json", "README.md", "LICENSE", "CHANGELOG.md", "docs/accumulator.md", "docs/chat-event.md", "dist/pkg/live.js", "dist/pkg/cjs/live.cjs", "docs/live.md", "dist/pkg/sessions.js", "dist/pkg/cjs/sessions.cjs", "dist/src/sessions/index.d.ts", "docs/sessions.md", "docs/bridge.md", "schemas/bridge.schema.json"]) {
      expect(paths, p).toContain(p);
    }
    expect(paths.filter((p) => /compatibility/i.test(p) && !p.endsWith(".d.ts") && !p.startsWith("dist/pkg/cjs/") && !/dist\/pkg\/compatibility\.js/.test(p))).toEqual(["generated/compatibility.json"]);
    expect(paths.filter((p) => /^dist\/(src|generated|mappings)\/.*\.js$/.test(p))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(test|tests|fixtures)\//.test(p) || p.endsWith(".ts") && !p.endsWith(".d.ts"))).toEqual([]);
    // every relative link of the shipped docs resolves inside the package
    for (const doc of paths.filter((p) => p.endsWith(".md") && (p.startsWith("docs/") || p === "README.md"))) {
      const text = readFileSync(join(ROOT, doc), "utf8");
      for (const m of text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)) {
        const target = join(doc.includes("/") ? doc.slice(0, doc.lastIndexOf("/")) : "", m[1]).replace(/\/$/, "");
        expect(paths.some((p) => p === target || p.startsWith(target + "/")), `${doc} links ${m[1]}`).toBe(true);
      }
    }
    expect(packSize).toBeGreaterThan(0);
    expect(unpackedSize).toBeGreaterThan(packSize);
  });

  it("an ES module app: the root, a surface entry, the accumulator, the validator, the reverse API", () => {
    const dir = app("esm-app", { type: "module" }, {
      "main.js": `
import { readFileSync } from "node:fs";
import { createNormalizer, answerRequest, EventType, parseEvent, AgentnormError, InvalidOptionError, UnknownSurfaceError, SURFACE_NAMES } from "agentnorm";
import { createNormalizer as codex } from "agentnorm/surfaces/codex-app-server";
import { createAccumulator } from "agentnorm/accumulator";
import { isCanonicalEvent } from "agentnorm/validate";
import { compatibilityMatrix } from "agentnorm/compatibility";
import schema from "agentnorm/schema.json" with { type: "json" };
const lines = readFileSync("session.ndjson", "utf8").split("\\n");
const a = createNormalizer({ surface: "codex-app-server" }), b = codex();
const acc = createAccumulator();
let events = 0, valid = 0, answer;
for (const line of lines) {
  const [x, y] = [a.pushLine(line), b.pushLine(line)];
  if (x.length !== y.length) throw new Error("the surface entry differs from the root");
  for (const e of x) {
    events++; if (isCanonicalEvent(parseEvent(JSON.stringify(e)))) valid++;
    acc.apply(e);
    if (e.type === EventType.RequestOpened && !answer) answer = answerRequest(e, { decision: "allow_once" });
  }
}
let unknown = ""; try { createNormalizer({ surface: "nope" }); } catch (err) { unknown = err instanceof UnknownSurfaceError ? err.code : "?"; }
// the entry points are separate bundles: their errors still match the root's classes
let crossEntry = ""; try { createAccumulator({ retainTurns: NaN }); } catch (err) { crossEntry = [err instanceof InvalidOptionError, err instanceof AgentnormError, err instanceof UnknownSurfaceError, err.code].join(); }
console.log(JSON.stringify({ events, valid, blocks: acc.getSession().turns.length, answered: !!answer, unknown, crossEntry, surfaces: SURFACE_NAMES.length, matrix: Object.keys(compatibilityMatrix().surfaces).length, schema: typeof schema.$id }));
`,
    });
    const out = JSON.parse(run("node", ["--no-warnings", "main.js"], dir));
    expect(out.events).toBeGreaterThan(10);
    expect(out.valid).toBe(out.events);
    expect(out).toMatchObject({ answered: true, unknown: "unknown_surface", crossEntry: "true,true,false,invalid_option", schema: "string" });
    expect(out.blocks).toBeGreaterThan(0);
    expect(out.matrix).toBe(out.surfaces);
  }, 120_000);

  it("agentnorm/sessions: an app lists the Claude Code session stored under its HOME and opens it", () => {
    const dir = app("sessions-app", { type: "module" }, {
      "main.js": `
import { listSessions, openSession, STORES } from "agentnorm/sessions";
import { createAccumulator } from "agentnorm/accumulator";
const env = { HOME: process.cwd() + "/home" };
const [s] = await listSessions({ env });
const acc = createAccumulator();
for await (const e of openSession(s, { env })) acc.apply(e);
console.log(JSON.stringify({ agent: s.agent, cwd: s.cwd, title: s.title, surface: s.surface, turns: acc.snapshot().sessions[0].turns.length, stores: Object.keys(STORES) }));
`,
    });
    const claude = join(ROOT, "fixtures/sessions/claude/home/.claude/projects/-sandbox-alpha");
    mkdirSync(join(dir, "home/.claude/projects/-sandbox-alpha"), { recursive: true });
    for (const f of readdirSync(claude)) writeFileSync(join(dir, "home/.claude/projects/-sandbox-alpha", f), readFileSync(join(claude, f)));
    const out = JSON.parse(run("node", ["main.js"], dir));
    expect(out).toEqual({ agent: "claude", cwd: "/sandbox/alpha", title: "Remember the number 42.", surface: "claude-transcript", turns: 2, stores: ["codex", "claude", "opencode", "gemini"] });
  }, 120_000);

  it("a CommonJS app: require() of the root, a surface and the accumulator", () => {
    const dir = app("cjs-app", {}, {
      "main.js": `
const { createNormalizer, VERSION } = require("agentnorm");
const { createNormalizer: claude } = require("agentnorm/surfaces/claude-sdk");
const { createAccumulator } = require("agentnorm/accumulator");
const n = createNormalizer({ surface: "codex-app-server" });
const acc = createAccumulator();
for (const line of require("fs").readFileSync("session.ndjson", "utf8").split("\\n")) for (const e of n.pushLine(line)) acc.apply(e);
console.log(JSON.stringify({ version: VERSION, events: acc.snapshot().eventCount, claude: typeof claude().push }));
`,
    });
    const out = JSON.parse(run("node", ["main.js"], dir));
    expect(out.version).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
    expect(out.events).toBeGreaterThan(10);
    expect(out.claude).toBe("function");
  }, 120_000);

  const TS_SOURCE = `
import { createNormalizer, EventType, parseEvent, type CanonicalEvent, type EventOf, type SurfaceName, type AgentnormErrorCode } from "agentnorm";
import { createAccumulator, type Block } from "agentnorm/accumulator";
import { createNormalizer as claude } from "agentnorm/surfaces/claude-sdk";
import { validateCanonicalEvent, type CanonicalValidationError } from "agentnorm/validate";

const surface: SurfaceName = "codex-app-server";
const n = createNormalizer({ surface });
const delta: CanonicalEvent<"content.delta"> | undefined = undefined as EventOf<"content.delta"> | undefined;
const text: string | undefined = delta?.payload.delta;
const fromJson: CanonicalEvent = parseEvent('{"eventId":"evt_1","schemaVersion":2,"provider":"codex","sessionId":"ses_1","createdAt":"2025-01-01T00:00:00.000Z","sequence":1,"type":"thread.started","payload":{}}');
const literal: EventOf<"turn.started"> = { eventId: "evt_2", schemaVersion: 2, provider: "codex", sessionId: "ses_1", createdAt: "2025-01-01T00:00:00.000Z", sequence: 2, turnId: "trn_1", type: "turn.started", payload: {} };
const unknownValue: unknown = JSON.parse(JSON.stringify(literal));
let kind = "";
if (validateCanonicalEvent(unknownValue)) kind = unknownValue.type;
const errors: CanonicalValidationError[] | null | undefined = validateCanonicalEvent.errors;
const code: AgentnormErrorCode = "unknown_surface";
const acc = createAccumulator();
acc.apply(fromJson);
acc.apply(literal);
const block: Block | undefined = acc.getBlock("x");
console.log(JSON.stringify({ type: EventType.ContentDelta, text, kind, errors: errors ?? null, code, block: block ?? null, turns: acc.getSession()!.turns.length, claude: typeof claude().end, ran: typeof n.push }));
`;
  const TSCONFIG = (module: string) => JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, module, moduleResolution: module, target: "ES2022", lib: ["ES2022", "DOM"], types: [], outDir: "out", noEmitOnError: true, exactOptionalPropertyTypes: false } });

  it("a TypeScript app with TypeScript's default resolution for CommonJS (moduleResolution node10, which reads no \"exports\") finds every subpath's types (typesVersions) and runs", () => {
    const config = JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, module: "commonjs", moduleResolution: "node10", target: "ES2022", lib: ["ES2022", "DOM"], types: [], outDir: "out", noEmitOnError: true } });
    const source = `${TS_SOURCE}
import type { Compatibility } from "agentnorm/compatibility";
import { SURFACES } from "agentnorm/tables";
const typed: [Compatibility | null] = [null];
if (typed.length !== 1 || typeof SURFACES !== "object") throw new Error("unexpected");
`;
    const dir = app("ts-node10-app", { type: "commonjs" }, { "main.ts": source, "tsconfig.json": config });
    run("node", [TSC, "-p", "."], dir);
    const out = JSON.parse(run("node", ["out/main.js"], dir));
    expect(out).toMatchObject({ type: "content.delta", kind: "turn.started", turns: 1, claude: "function" });
  }, 120_000);

  for (const flavour of ["module", "commonjs"] as const) {
    it(`a strict TypeScript app (${flavour === "module" ? "ESM" : "CommonJS"}, skipLibCheck: false) compiles and runs`, () => {
      const dir = app(`ts-${flavour}-app`, { type: flavour }, { "main.ts": TS_SOURCE, "tsconfig.json": TSCONFIG("nodenext") });
      run("node", [TSC, "-p", "."], dir);
      const out = JSON.parse(run("node", ["out/main.js"], dir));
      expect(out).toEqual({ type: "content.delta", kind: "turn.started", errors: null, code: "unknown_surface", block: null, turns: 1, claude: "function", ran: "function" });
    }, 120_000);
  }
});
