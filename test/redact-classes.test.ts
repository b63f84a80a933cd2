/**
 * Every secret class of issue 31 (test/support/secret-classes.ts): random secrets of each class, in several
 * spellings, written through all three capture stages (a provider message, a canonical event, a legacy line) and
 * sanitized: the secret appears nowhere, the words around it stay. Then what must NOT be redacted: ordinary
 * identifiers and code, hashes in git output, UUIDs, paths, versions, prose about secrets.
 * docs/capture.md lists each class with the test here that covers it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CAPTURE_STAGES, createCaptureWriter, readCapture, serializeRecords } from "../src/capture/capture.js";
import { createRedactor, looksRandom } from "../src/capture/redact.js";
import { sanitizeCapture } from "../src/capture/replay.js";
import { gen, LOGIN_KNOWN, SECRET_CLASSES, type Planted } from "./support/secret-classes.js";

const PER_CLASS = 24;

/** The spellings a value can take in the written bytes: as is, JSON-escaped once and twice. */
function needles(v: string): string[] {
  const once = JSON.stringify(v).slice(1, -1);
  return [...new Set([v, once, JSON.stringify(once).slice(1, -1)])];
}

/** Write each planted text through every stage of one capture and sanitize it; the leaks and the lost words. */
function capture(planted: Planted[], options: Parameters<typeof createRedactor>[0] = {}, before = "") {
  const w = createCaptureWriter({ provider: "codex", source: "codex-app-server", captureId: "classes", clock: () => 0, redact: options });
  let text = before ? w.line("native_in", "x", { params: { cwd: before } }) : "";
  for (const p of planted) {
    for (const stage of CAPTURE_STAGES) {
      const payload = stage === "native_in" ? { method: "item/completed", params: { item: { aggregatedOutput: p.text } } }
        : stage === "normalized_out" ? { type: "item.completed", payload: { itemType: "command_execution", output: p.text } }
        : `[TOOL_RESULT] ${JSON.stringify({ content: p.text })}`;
      text += w.line(stage, "x", payload);
    }
  }
  const fixture = serializeRecords(sanitizeCapture(readCapture(text).records, { redact: options }));
  const leaks: string[] = [];
  const lost: string[] = [];
  for (const p of planted) {
    for (const s of p.secrets) for (const n of needles(s)) {
      if (text.includes(n)) leaks.push(`capture: …${s.slice(0, 4)} in ${JSON.stringify(p.text.slice(0, 60))}`);
      if (fixture.includes(n)) leaks.push(`fixture: …${s.slice(0, 4)} in ${JSON.stringify(p.text.slice(0, 60))}`);
    }
    for (const k of p.keep) if (!needles(k).some((n) => text.includes(n))) lost.push(`${k} (from ${JSON.stringify(p.text.slice(0, 60))})`);
  }
  expect(readCapture(text).errors).toEqual([]);
  return { leaks, lost, text };
}

describe("secret classes: redacted in every stage and in the sanitized fixture", () => {
  SECRET_CLASSES.forEach((c, ci) => {
    it(`class: ${c.name}`, () => {
      const g = gen(3100 + ci);
      const planted = Array.from({ length: PER_CLASS }, () => c.make(g));
      const { leaks, lost } = capture(planted, c.options?.(g) ?? {});
      expect([...new Set(leaks)]).toEqual([]);
      expect(lost).toEqual([]);
    });
  });

  for (const how of LOGIN_KNOWN) {
    it(`class: login name anywhere — ${how}`, () => {
      const g = gen(3200 + LOGIN_KNOWN.indexOf(how));
      const u = g.login();
      const texts = [`Hi ${u}, the build finished.`, `${u}@laptop:~/src$ ls`, `Author: ${u} <${u}@example.com>`, `sudo -u ${u} make`];
      // known by a context, a home path or the host: then the bare word goes too
      const planted: Planted[] = texts.map((t) => ({ text: t, secrets: [u], keep: [t.split(u)[0].trim() || "make"].filter(Boolean) }));
      const context = how === "context only" ? [{ text: `USER=${u}`, secrets: [u], keep: ["USER="] }] : [];
      const options = how === "given" ? { user: u } : {};
      const { leaks } = capture([...context, ...planted], options, how === "home path seen first" ? `/home/${u}/project` : "");
      expect(leaks).toEqual([]);
    });
  }

  it("class: login name — common account names are never taken for it (root, ubuntu, runner, git, staff)", () => {
    const red = createRedactor({ user: ["root", "ubuntu"] });
    const text = "ssh git@github.com; ls -l: -rw-r--r-- 1 root staff 1 Jan 1 00:00 x; /home/runner/work; USER=ubuntu; the user is root";
    const out = red.redact(text).value as string;
    expect(out).toContain("ssh git@github.com");
    expect(out).toContain("1 root staff");
    expect(out).toContain("USER=ubuntu");
    expect(out).toContain("the user is root");
  });
});

describe("what redaction must NOT touch", () => {
  const kept = (s: string, options = {}) => expect(createRedactor(options).redact({ t: s }).value, s).toEqual({ t: s });

  it("ordinary identifiers and code that names secrets", () => {
    for (const s of [
      "const token = await getToken();",
      "password = request.form['password']",
      "api_key = os.environ[\"API_KEY\"]",
      "apiKey: process.env.OPENAI_API_KEY,",
      "token: string;",
      "def login(username: str, password: str) -> bool:",
      "if key == 'x': pass",
      "for key, value in items.items():",
      "const keyboard = useKeyboard(); let tokenizer = new Tokenizer();",
      "monkey, author, passenger, bypass, compass, keyframes, tokenize, passport",
      "secret: true",
      "password: required",
      "The key: press Enter to continue.",
      "Pass: yes",
      "see the --token option for details",
      "input_tokens: 1200, output_tokens: 30, max_tokens: 4096",
      "auth_method: chatgpt, authMode: apikey",
      "git config user.name Bob",
      "npm config set registry https://registry.npmjs.org/",
      "docker run -u 1000:1000 --rm img",
      "const x = items.map((item) => item.id);",
      "NODE_OPTIONS=--max-old-space-size=4096",
      "MODEL=claude-sonnet-4-5-20250929",
      "LANG=en_US.UTF-8 TERM=xterm-256color",
      "ThisIsAVeryLongCamelCaseIdentifierName2 and internationalization",
    ]) kept(s);
  });

  it("hashes in git output", () => {
    for (const s of [
      "commit 4f2a1b3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a\nAuthor: Bob <bob@example.com>\nDate:   Mon Jan 1 00:00:00 2026 +0000\n\n    fix the auth keys\n",
      "4f2a1b3 fix: handle auth keys\n9e8d7c6 feat: token refresh",
      "GIT_SHA=4f2a1b3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a",
      "index 83db48f..bf269f4 100644\n--- a/src/auth.ts\n+++ b/src/auth.ts",
      "HEAD is now at 4f2a1b3 token rotation",
      "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      "integrity sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR9wLN4kgVaJuY9Kg==",
    ]) kept(s);
  });

  it("UUIDs, ids, paths, versions, URLs without credentials, times", () => {
    for (const s of [
      "id: 123e4567-e89b-12d3-a456-426614174000",
      "SESSION_ID=ses_01HXYZabcdEFGH12345678, REQUEST_ID=req_011CUpy6FQpZ8NtJ3Bq4z",
      "path: /usr/local/lib/node_modules/agentnorm/dist/index.js",
      "node_modules/.bin/vitest run test/redact.test.ts",
      "image: ghcr.io/org/app:v1.2.3",
      "https://example.com/search?q=hello&page=2",
      "2026-01-01T00:00:00.000Z",
      "see /sandbox/home/kept and /var/home-dir/x",
      "aGVsbG8gd29ybGQ= is base64 of hello world",
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    ]) kept(s);
  });

  it("looksRandom: random tokens yes; words, identifiers, hex hashes, UUIDs, versions and paths no", () => {
    expect(["aZ3kQ9mP2xV7nB4cL8wR1tY6", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFi"].every(looksRandom)).toBe(true);
    expect(["internationalization", "ThisIsAVeryLongCamelCaseIdentifierName2", "my_long_variable_name_2", "4f2a1b3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a", "123e4567-e89b-12d3-a456-426614174000", "claude-sonnet-4-5-20250929", "/usr/local/lib/node_modules/x", "v1.2.3-beta.4+build.5"].filter(looksRandom)).toEqual([]);
  });
});

describe("bounded time on hostile text", () => {
  it("every rule stays linear: 200k characters of repeated rule openers each redact in well under a second", () => {
    const N = 200_000;
    const openers = ["mysql ", "ssh a ", 'a: "', "a=", "a://a:", "http://u:p", "Ab1+", "Cookie: ", "whoami ", "uid=1(a) ", "--password ", "-----BEGIN RSA PRIVATE KEY-----", "echo x | ", "/home/a", "  a: b\n", "-rw-r--r-- 1 a b 1 x\n", "1234567:", "?a=b&", "uabcdefg ", "\\\\", '\\"'];
    const slow: string[] = [];
    for (const o of openers) {
      const text = (o.startsWith("  a:") ? "kind: Secret\ndata:\n" : "") + o.repeat(Math.ceil(N / o.length));
      const t = performance.now();
      createRedactor({ home: "/home/uabcdefg", user: "uabcdefg" }).redact(text);
      createRedactor().redactTracked(text.slice(0, 20_000));
      const ms = performance.now() - t;
      if (ms > 1500) slow.push(`${JSON.stringify(o)}: ${Math.round(ms)} ms`);
    }
    expect(slow).toEqual([]);
  });
});

describe("docs/capture.md", () => {
  const root = fileURLToPath(new URL("../", import.meta.url));
  const doc = readFileSync(join(root, "docs/capture.md"), "utf8");
  /** The titles a test file declares: its literal it("…") titles, and the generated class titles of this file. */
  const titles = (file: string): Set<string> => {
    const src = readFileSync(join(root, "test", file), "utf8");
    const out = new Set<string>();
    for (const m of src.matchAll(/\bit(?:\.\w+)?\((?:"((?:[^"\\]|\\.)*)"|`([^`$]*)`)/g)) out.add(m[1] !== undefined ? JSON.parse(`"${m[1]}"`) : m[2]);
    if (file === "redact-classes.test.ts") {
      for (const c of SECRET_CLASSES) out.add(`class: ${c.name}`);
      for (const how of LOGIN_KNOWN) out.add(`class: login name anywhere — ${how}`);
    }
    return out;
  };

  it("lists every secret class with a test that exists", () => {
    const cited: string[] = [];
    const missing: string[] = [];
    for (const row of doc.split("\n").filter((l) => l.startsWith("| ") && /\.test\.ts "/.test(l))) {
      const cell = row.split(" | ").pop()!;
      const file = /([\w.-]+\.test\.ts) "/.exec(cell)![1];
      const have = titles(file);
      for (const m of cell.matchAll(/"((?:[^"]|"(?=[^|]*"))*?)"(?=,|\s*\|?\s*$)/g)) {
        // markdown escapes a backslash in code spans the way the test source does
        const t = m[1].replace(/\\\\/g, "\\");
        cited.push(t);
        if (!have.has(t)) missing.push(`${file}: ${t}`);
      }
    }
    expect(missing).toEqual([]);
    for (const c of SECRET_CLASSES) expect(cited, c.name).toContain(`class: ${c.name}`);
    for (const how of LOGIN_KNOWN) expect(cited).toContain(`class: login name anywhere — ${how}`);
  });

  it("names every redaction kind", () => {
    const src = readFileSync(join(root, "src/capture/redact-text.ts"), "utf8");
    const union = /export type RedactionKind =([^;]+);/.exec(src)![1];
    for (const k of union.match(/"([a-z0-9_]+)"/g)!.map((x) => x.slice(1, -1))) expect(doc, k).toContain(`\`${k}\``);
  });
});
