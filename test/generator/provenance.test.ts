/**
 * Provenance: every pinned upstream folder's PROVENANCE.md lists its files with their sha256; codegen checks the
 * hashes against the pinned files (E601–E606), and generated files carry the hashes they were generated from.
 * Checked on the repository's own folders and on a throwaway root with the mini table (miniRoot).
 */
import { readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MINI_PINNED, ROOT, loadGenerator, miniRoot, provenance, sha256, type Diagnostic, type Generator } from "./gen.ts";

interface ProvenanceModule {
  pinnedFolders(root: string): string[];
  checkProvenance(root: string, used: ReadonlyMap<string, readonly string[]>): Diagnostic[];
}

let gen: Generator;
let prov: ProvenanceModule;
const tmps: string[] = [];
beforeAll(async () => {
  gen = await loadGenerator();
  prov = await import(/* @vite-ignore */ pathToFileURL(join(ROOT, "generator/provenance.ts")).href);
});
afterAll(() => {
  for (const t of tmps) rmSync(t, { recursive: true, force: true });
});
function root(): string {
  const r = miniRoot();
  tmps.push(r);
  return r;
}
const fmt = (d: Diagnostic) => gen.diagnostics.formatDiagnostic(d);
const PF = `${MINI_PINNED}/PROVENANCE.md`;
const lineOf = (text: string, part: string) => text.slice(0, text.indexOf(part)).split("\n").length;

describe("the repository's pinned folders", () => {
  it("each has a PROVENANCE.md whose listed sha256 are the files' and which lists every schema file", () => {
    const folders = prov.pinnedFolders(ROOT);
    expect(folders).toContain("schemas/upstream/codex-app-server/0.171.0");
    // one pinned folder per upstream and version (schemas/upstream/<upstream>/<version>/)
    const versionDirs = readdirSync(join(ROOT, "schemas/upstream")).filter((n) => !n.includes(".") && n !== "LICENSE")
      .flatMap((n) => readdirSync(join(ROOT, "schemas/upstream", n), { withFileTypes: true }).filter((d) => d.isDirectory()));
    expect(folders.length).toBe(versionDirs.length);
    expect(folders).toContain("schemas/upstream/claude-agent-sdk/0.2.62");
    expect(folders).toContain("schemas/upstream/claude-agent-sdk/0.3.333");
    expect(prov.checkProvenance(ROOT, new Map()).map(fmt)).toEqual([]);
  });

  it("a listing line is checked for real: the first hash of codex-app-server's PROVENANCE.md is its file's", () => {
    const text = readFileSync(join(ROOT, "schemas/upstream/codex-app-server/0.171.0/PROVENANCE.md"), "utf8");
    const m = /^\| `([^`]+)` \| ([0-9a-f]{64}) \|/m.exec(text)!;
    expect(m).not.toBeNull();
    expect(sha256(readFileSync(join(ROOT, "schemas/upstream/codex-app-server/0.171.0", m[1])))).toBe(m[2]);
  });
});

describe("checks on a pinned folder", () => {
  it("a changed schema file → E601 at its listing line, with both hashes; codegen fails", async () => {
    const r0 = root();
    const file = join(r0, MINI_PINNED, "Notifications.json");
    const before = readFileSync(file);
    const changed = before.toString("utf8").replace('"title"', '"description": "changed", "title"');
    writeFileSync(file, changed);
    const text = readFileSync(join(r0, PF), "utf8");
    const r = await gen.pipeline.buildAll(r0, { tables: ["mappings/mini.yaml"] });
    expect(r.files).toBeUndefined();
    expect(r.diagnostics.map(fmt)).toEqual([
      `${PF}:${lineOf(text, "`Notifications.json`")}:${text.split("\n")[lineOf(text, "`Notifications.json`") - 1].indexOf(sha256(before)) + 1} error E601 sha256 of \`Notifications.json\` is ${sha256(changed)}, not the listed ${sha256(before)}: the pinned file changed (restore or re-sync it) or the listing is stale (update it)`,
    ]);
  });

  it("no PROVENANCE.md → E600", async () => {
    const r0 = root();
    unlinkSync(join(r0, PF));
    expect(prov.checkProvenance(r0, new Map()).map((d) => `${d.file} ${d.code}`)).toEqual([`${PF} E600`]);
  });

  it("a listed file that is missing → E602; one listed twice → E605", () => {
    const r0 = root();
    const h = sha256(readFileSync(join(r0, MINI_PINNED, "Notifications.json")));
    writeFileSync(join(r0, PF), provenance({ "Notifications.json": h, "Gone.json": h }) + `| \`Notifications.json\` | ${h} |\n`);
    const text = readFileSync(join(r0, PF), "utf8");
    expect(prov.checkProvenance(r0, new Map()).map((d) => `${d.code}@${d.line}`).sort()).toEqual(
      [`E602@${lineOf(text, "`Gone.json`")}`, `E605@${text.split("\n").length - 1}`].sort(),
    );
  });

  it("a file a table reads that is not listed → E603 naming the table; an unlisted unused schema file → E604", async () => {
    const r0 = root();
    writeFileSync(join(r0, PF), provenance({}));
    writeFileSync(join(r0, MINI_PINNED, "Unused.json"), "{}");
    const r = await gen.pipeline.buildAll(r0, { tables: ["mappings/mini.yaml"] });
    const ds = r.diagnostics.map((d) => `${d.code} ${d.message.replace(/ \([0-9a-f]{64}\)$/, "")}`);
    expect(ds.sort()).toEqual([
      "E603 does not list `Notifications.json`, which mappings/mini.yaml reads: add it with its sha256",
      "E604 does not list the schema file `Unused.json`: add it with its sha256",
    ]);
    // the message gives the hash to add
    expect(r.diagnostics.find((d) => d.code === "E603")!.message).toContain(sha256(readFileSync(join(r0, MINI_PINNED, "Notifications.json"))));
  });

  it("a table reading a schema under schemas/upstream but outside a <name>/<version> folder → E606", () => {
    const r0 = root();
    expect(prov.checkProvenance(r0, new Map([["schemas/upstream/loose/File.json", ["mappings/x.yaml"]]])).map((d) => `${d.file} ${d.code}`)).toEqual(["mappings/x.yaml E606"]);
  });
});

describe("generated headers", () => {
  it("name the pinned upstream and the sha256 of each schema file the output was generated from", async () => {
    const r0 = root();
    const r = await gen.pipeline.buildAll(r0, { tables: ["mappings/mini.yaml"] });
    expect(r.diagnostics.map(fmt)).toEqual([]);
    const h = sha256(readFileSync(join(r0, MINI_PINNED, "Notifications.json")));
    for (const f of ["generated/mappers/mini.gen.ts", "generated/upstream/mini.gen.ts", "generated/tests/mini.coverage.test.ts"]) {
      const head = r.files!.get(f)!.split("\n").slice(0, 5).join("\n");
      expect(head, f).toContain(`${MINI_PINNED} (@example/mini@1.0.0)`);
      expect(head, f).toContain(`//   ${h}  ${MINI_PINNED}/Notifications.json`);
    }
  });
});
