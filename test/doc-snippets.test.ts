/**
 * The code in the shipped documents works as a user would copy it, against the built package (`npm test` builds
 * first; "agentnorm" resolves through package.json's exports, as in a project that installed it):
 * - every ```ts block type-checks. A block that is a fragment (it reads the host's own stream, renderer or writer)
 *   gets those few names from PLACEHOLDERS below, typed; nothing else is declared for it;
 * - every ```js block that says what it prints (`console.log(…); // <output>`, the output on the line below a long
 *   call, or a call followed by `// AnswerError <code>: <message>`) runs, and prints that.
 * Type sketches are fenced as ```text, not ```ts.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const ROOT = join(__dirname, "..");
const DOCS = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];

interface Block { doc: string; line: number; lang: string; code: string }

function blocks(): Block[] {
  const out: Block[] = [];
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), "utf8");
    for (const m of text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
      out.push({ doc, line: text.slice(0, m.index).split("\n").length, lang: m[1], code: m[2] });
    }
  }
  return out;
}

/** What a fragment reads of the host's own (its lines, stream, renderer, writer…), typed. */
const PLACEHOLDERS = `
import type { CanonicalEvent } from "agentnorm";
import type { Block, Step } from "agentnorm/accumulator";
declare global {
  /** the host's input lines */
  const lines: string[];
  /** a provider message the host received */
  const message: unknown;
  /** canonical events the host holds */
  const events: CanonicalEvent[];
  const canonicalEvents: CanonicalEvent[];
  /** a request.opened event */
  const opened: CanonicalEvent;
  /** the host's event source */
  const stream: { on(name: "event", f: (e: CanonicalEvent) => void): void };
  /** where the host writes */
  const bridge: { write(text: string): void };
  const log: { write(lines: string): void };
  /** the host's renderer */
  function render(e: CanonicalEvent): void;
  function draw(block: Block | undefined): void;
  function placeInStep(el: HTMLElement, step: Step): void;
}
export {};
`;

describe("docs: the TypeScript blocks type-check against the built package", () => {
  const ts_ = blocks().filter((b) => b.lang === "ts" || b.lang === "tsx");

  it("there are TypeScript blocks, and the package's types are built", () => {
    expect(ts_.length).toBeGreaterThan(10);
    expect(existsSync(join(ROOT, "dist/src/index.d.ts")), "npm run build first").toBe(true);
  });

  it("every block compiles (strict), each as a module of its own", () => {
    // virtual files beside package.json, so "agentnorm" resolves to this package by its own name
    const dir = join(ROOT, ".doc-snippets");
    const files = new Map<string, string>([[join(dir, "placeholders.d.ts"), PLACEHOLDERS]]);
    const names = new Map<string, Block>();
    for (const b of ts_) {
      const f = join(dir, `${b.doc.replace(/[/.]/g, "_")}_${b.line}.${b.lang}`);
      // a block that declares nothing it exports is still a module (top-level await, its own scope)
      files.set(f, `${b.code}\nexport {};\n`);
      names.set(f, b);
    }
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true, noEmit: true, skipLibCheck: true, lib: ["lib.es2022.d.ts", "lib.dom.d.ts"], types: ["node"], jsx: ts.JsxEmit.ReactJSX,
    };
    const host = ts.createCompilerHost(options);
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    host.readFile = (f) => files.get(f) ?? read(f);
    host.fileExists = (f) => files.has(f) || exists(f);
    host.getSourceFile = ((orig) => (f, v, onError, create) => {
      const text = files.get(f);
      return text !== undefined ? ts.createSourceFile(f, text, v, true) : orig(f, v, onError, create);
    })(host.getSourceFile.bind(host));
    const program = ts.createProgram([...files.keys()], options, host);
    const problems = ts.getPreEmitDiagnostics(program).filter((d) => d.file && files.has(d.file.fileName)).map((d) => {
      const b = names.get(d.file!.fileName);
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      const where = b ? `${b.doc}:${b.line + 1 + line}` : d.file!.fileName;
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
    });
    expect(problems).toEqual([]);
  });
});

/** A ```js block that says what it prints, as a script printing what it prints (and what it throws, where it says so). */
function doctest(code: string): { script: string; expected: string[] } | undefined {
  const expected: string[] = [];
  const lines = code.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const said = /^(console\.log\(.*\));\s*\/\/ (.+)$/.exec(l);
    const throws = /^\/\/ (AnswerError \w+: .*)$/.exec(lines[i + 1] ?? "");
    // the output on the line after the call, when the call is long
    const saidBelow = /^console\.log\(.*\);\s*$/.test(l) && !throws ? /^\/\/ (.+)$/.exec(lines[i + 1] ?? "") : null;
    if (said) {
      out.push(`${said[1]};`);
      expected.push(said[2]);
    } else if (saidBelow) {
      out.push(l);
      expected.push(saidBelow[1]);
      i++;
    } else if (throws && /;\s*$/.test(l)) {
      // the call throws what the next comment says (its message may go on in the comment lines after it)
      let message = throws[1];
      for (let j = i + 2; j < lines.length && /^\/\/ /.test(lines[j]); j++) message += " " + lines[j].slice(3);
      out.push(`try { ${l.trim()} console.log("no error"); } catch (e) { console.log(\`\${e.name} \${e.code}: \${e.message}\`); }`);
      expected.push(message);
    } else out.push(l);
  }
  return expected.length ? { script: out.join("\n"), expected } : undefined;
}

describe("docs: the JavaScript examples print what they say", () => {
  const runnable = blocks().filter((b) => b.lang === "js").map((b) => ({ b, t: doctest(b.code) })).filter((x) => x.t);

  it("there are examples that say their output", () => expect(runnable.length).toBeGreaterThanOrEqual(3));

  for (const { b, t } of runnable) {
    it(`${b.doc}:${b.line}`, () => {
      expect(existsSync(join(ROOT, "dist/pkg/index.js")), "npm run build first").toBe(true);
      const dir = join(ROOT, "test-artifacts", "doc-snippets");
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${b.doc.replace(/[/.]/g, "_")}_${b.line}.mjs`);
      writeFileSync(file, t!.script);
      try {
        const r = spawnSync(process.execPath, [file], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
        expect(r.stderr).toBe("");
        const got = r.stdout.trimEnd().split("\n");
        // console.log prints objects over several lines when they are long: compare with white space collapsed
        const flat = (s: string) => s.replace(/\s+/g, " ").trim();
        expect(got.map(flat)).toEqual(t!.expected.map(flat));
      } finally {
        rmSync(file, { force: true });
      }
    });
  }
});
