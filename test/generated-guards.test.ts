/**
 * The dispatcher gives every row it tries for a message the same scope: a row that does not match must return at
 * its guard, before it touches the scope (ref, emit, setVar…). The generator emits the guard as a row's first
 * statement (after the declaration of the locals its reused variable lookups go in, which touches nothing); this
 * checks every generated row function for it.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const DIR = join(__dirname, "../generated/mappers");

describe("generated rows: a row that does not match returns before it touches the scope", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".gen.ts"));
  it("every generated mapper has rows", () => expect(files.length).toBeGreaterThan(10));
  for (const f of files) {
    it(f, () => {
      const text = readFileSync(join(DIR, f), "utf8");
      const rows = [...text.matchAll(/^function (r_\w+)\([^)]*\): boolean \{\n([\s\S]*?)^\}/gm)];
      expect(rows.length).toBeGreaterThan(0);
      for (const [, name, body] of rows) {
        // the row's statements (a statement may span lines: a long chain is laid out one alternative a line)
        const sf = ts.createSourceFile(`${name}.ts`, `function f() {\n${body}}`, ts.ScriptTarget.Latest, true);
        const statements = [...(sf.statements[0] as ts.FunctionDeclaration).body!.statements].map((x) => x.getText(sf));
        // the reused lookups' locals, all unset: declared before the guard, read (and set) only when needed
        if (/^let v\d+: \w+ = UNSET(, v\d+: \w+ = UNSET)*;$/.test(statements[0] ?? "")) statements.shift();
        statements.forEach((l, i) => {
          if (/\breturn false\b/.test(l)) expect(`${name}: statement ${i + 1}`).toBe(`${name}: statement 1`);
          // a hold row claims the message only through cx.hold, which parks nothing when it returns false
          if (/return cx\.hold\(/.test(l)) expect(i).toBeLessThanOrEqual(1);
        });
      }
    });
  }
});

/**
 * Generated code names its types: `any` is nowhere a type in generated/ (mappers, answers, grammar, upstream types,
 * session-variable slots, tests…). Values the upstream schema leaves open are read as a JsonView
 * (src/normalize/row-util.ts), list elements as their schema's element type, session variables as JsonView from
 * their slots (generated/vars.gen.ts).
 */
/** The `any` types of a TypeScript source, as "line: text". */
function anyTypes(name: string, text: string): string[] {
  const sf = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const walk = (n: ts.Node): void => {
    if (n.kind === ts.SyntaxKind.AnyKeyword) {
      const { line } = sf.getLineAndCharacterOfPosition(n.getStart(sf));
      out.push(`${name}:${line + 1}: ${n.parent.getText(sf).slice(0, 120)}`);
    }
    ts.forEachChild(n, walk);
  };
  walk(sf);
  return out;
}

describe("generated code: no any as a type", () => {
  const ROOT = join(__dirname, "../generated");
  const files = (readdirSync(ROOT, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts")).sort();

  it("finds an any where one is a type, and only there", () => {
    expect(anyTypes("x.ts", "const a: any = 1; function f(m: any, cx?: { x(): any }) {}\n// any word in a comment\nconst s = \"any\";")).toHaveLength(3);
    expect(anyTypes("x.ts", "let v1: any = UNSET, v2: any = UNSET; const w: { varAt(key: string): any } = cx;")).toHaveLength(3);
    expect(anyTypes("x.ts", "let v1: unknown = UNSET; const f = (m: { get(key: string): JsonView }) => m;")).toEqual([]);
  });

  it("every generated TypeScript file", () => {
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((f) => anyTypes(f, readFileSync(join(ROOT, f), "utf8")));
    expect(found).toEqual([]);
  });
});

describe("generated code: one statement a line", () => {
  const ROOT = join(__dirname, "../generated");
  const files = (readdirSync(ROOT, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts")).sort();

  it("no two statements of a function on one line, no layout marker left", () => {
    const found: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), "utf8");
      // the generator's block markers (expandBlocks) are all laid out
      if (/[\u0001-\u0003]/.test(text)) found.push(`${f}: a block marker`);
      const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
      const walk = (n: ts.Node): void => {
        if (ts.isBlock(n) && n.statements.length > 1) {
          const lines = n.statements.map((s) => sf.getLineAndCharacterOfPosition(s.getStart(sf)).line);
          lines.forEach((l, i) => { if (i && l === lines[i - 1]) found.push(`${f}:${l + 1}`); });
        }
        ts.forEachChild(n, walk);
      };
      walk(sf);
    }
    expect(found.slice(0, 10)).toEqual([]);
  });
});

describe("generated validator: locals numbered in the order they are declared", () => {
  it("every function's k/v/i/b locals count up from 0 as they appear", () => {
    const text = readFileSync(join(__dirname, "../generated/validators/canonical-event.gen.ts"), "utf8");
    const sf = ts.createSourceFile("v.ts", text, ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    let checked = 0;
    for (const st of sf.statements) {
      if (!ts.isFunctionDeclaration(st) || !st.body) continue;
      const nums: number[] = [];
      const walk = (n: ts.Node): void => {
        if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) {
          const m = /^[kvib](\d+)$/.exec(n.name.text);
          if (m) nums.push(Number(m[1]));
        }
        ts.forEachChild(n, walk);
      };
      walk(st.body);
      if (nums.length) checked++;
      if (nums.some((x, i) => x !== i)) found.push(`${st.name?.text}: ${nums.join(", ")}`);
    }
    expect(checked).toBeGreaterThan(50);
    expect(found.slice(0, 5)).toEqual([]);
  });
});
