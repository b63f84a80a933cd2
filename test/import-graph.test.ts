/**
 * The house's import graph: no module of src/ or generator/ reaches itself again through its imports (type imports
 * included), and the generator depends on its own modules and the shared model (src/model/), never on tools/ or the
 * runtime's other modules.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((f) => {
    const p = join(dir, f);
    return statSync(join(root, p)).isDirectory() ? tsFiles(p) : f.endsWith(".ts") && !f.endsWith(".d.ts") ? [p] : [];
  });
}

/**
 * A file's relative imports and re-exports: the statements before its first declaration (an import further down is
 * text a template emits into another file).
 */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const declaration = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function|const|let|var|class|interface|enum|declare|abstract)\b|^(?:export\s+)?type\s+\w+\s*[=<]/m.exec(text);
  const head = declaration ? text.slice(0, declaration.index) : text;
  const out: string[] = [];
  for (const m of head.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gm)) out.push(normalize(join(dirname(file), m[1])).replace(/\.js$/, ".ts"));
  return out;
}

/** The strongly connected groups of more than one file (Tarjan). */
function circles(files: string[]): string[][] {
  const set = new Set(files);
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => set.has(t))]));
  const index = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string): void => {
    index.set(v, n); low.set(v, n); n++; stack.push(v); on.add(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do { w = stack.pop()!; on.delete(w); group.push(w); } while (w !== v);
      if (group.length > 1) out.push(group.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return out;
}

describe("import graph", () => {
  const src = tsFiles("src");
  const generator = tsFiles("generator");

  it("reads the imports it checks (the runtime's and the generator's known edges are found)", () => {
    expect(importsOf("src/normalize/dispatch.ts")).toContain(join("src", "normalize", "scope.ts"));
    expect(importsOf("generator/tables.ts")).toContain(join("generator", "rows.ts"));
  });

  it("has no import circles in src/ or generator/", () => {
    expect(circles([...src, ...generator])).toEqual([]);
  });

  it("the generator imports only its own modules and src/model/", () => {
    const outside = generator.flatMap((f) => importsOf(f).filter((t) => !t.startsWith("generator/") && !t.startsWith("src/model/")).map((t) => `${f} → ${relative(root, join(root, t))}`));
    expect(outside).toEqual([]);
  });

  it("src/model/ imports nothing of the runtime", () => {
    const model = src.filter((f) => f.startsWith("src/model/"));
    expect(model.length).toBeGreaterThan(0);
    for (const f of model) for (const t of importsOf(f)) expect(t, f).toMatch(/^src\/model\//);
  });
});
