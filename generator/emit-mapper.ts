/**
 * Emits generated/mappers/<surface>.gen.ts: one typed function per table row and the dispatch table keyed
 * by kind and method. Built with ts-morph (structures for declarations, writer text for bodies).
 */
import { Project, VariableDeclarationKind, type SourceFile } from "ts-morph";
import type { Cond, Expr, RowIR, StepIR, TableIR } from "./tables.ts";
import type { Kind } from "./upstream.ts";

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function pascalKind(k: string): string {
  return k[0].toUpperCase() + k.slice(1);
}

export function fnName(rule: string): string {
  return "r_" + rule.replace(/[^A-Za-z0-9]/g, "_");
}

function access(base: string, segs: string[]): string {
  return segs.reduce((acc, s) => acc + (/^\d+$/.test(s) ? `?.[${s}]` : IDENT.test(s) ? `?.${s}` : `?.[${JSON.stringify(s)}]`), base);
}

function lit(v: unknown): string {
  return v === undefined ? "undefined" : JSON.stringify(v);
}

export function exprCode(e: Expr, scope: Set<string>): string {
  switch (e.k) {
    case "path": {
      const base = scope.has(e.root) ? `s_${e.root}` : e.root === "msg" ? "x" : e.root === "request" ? "cx.request" : e.root === "meta" ? "cx.meta" : e.root === "line" ? "cx.line" : e.root === "capture" ? "capture" : `x${IDENT.test(e.root) ? "." + e.root : `[${JSON.stringify(e.root)}]`}`;
      return access(base, e.segs);
    }
    case "lit":
      return lit(e.v);
    case "map":
      return `map_${e.name}(${exprCode(e.from, scope)}${e.def !== undefined ? `, ${lit(e.def)}` : ""})`;
    case "helper":
      return `h.${e.name}(${e.args.map((a) => exprCode(a, scope)).join(", ")})`;
    case "first":
      return `(${e.items.map((a) => exprCode(a, scope)).join(" ?? ")})`;
    case "state":
      return `cx.state(${lit(e.role)}, ${lit(e.field)})`;
    case "obj":
      return `{ ${e.entries.map(([k, v]) => `${IDENT.test(k) ? k : JSON.stringify(k)}: ${exprCode(v, scope)}`).join(", ")} }`;
    case "arr":
      return `[${e.items.map((a) => exprCode(a, scope)).join(", ")}]`;
    case "var":
      return `cx.getVar([${e.key.map((a) => exprCode(a, scope)).join(", ")}])`;
    case "id":
      return `cx.id(${lit(e.role)})`;
    case "join":
      return `joinKey(${e.items.map((a) => exprCode(a, scope)).join(", ")})`;
  }
}

function condCode(c: Cond, scope: Set<string> = new Set()): string {
  switch (c.k) {
    case "eq": return `${exprCode(c.path, scope)} === ${lit(c.value)}`;
    case "not": return `${exprCode(c.path, scope)} !== ${lit(c.value)}`;
    case "in": return `(${c.values.map((v) => `${exprCode(c.path, scope)} === ${lit(v)}`).join(" || ")})`;
    case "exists": return c.exists ? `${exprCode(c.path, scope)} != null` : `${exprCode(c.path, scope)} == null`;
    case "state": {
      const role = lit(c.role);
      return { new: `cx.isNew(${role})`, open: `cx.wasOpen(${role})`, notOpen: `!cx.wasOpen(${role})`, stale: `cx.isStale(${role})`, notStale: `!cx.isStale(${role})` }[c.test];
    }
  }
}

function stepsCode(steps: StepIR[], surface: string, scope: Set<string>, indent: string): string[] {
  const out: string[] = [];
  const guarded = (cond: Cond[], call: string) => `${indent}${cond.length ? `if (${cond.map((c) => condCode(c, scope)).join(" && ")}) ` : ""}${call}`;
  for (const s of steps) {
    switch (s.k) {
      case "emit":
        out.push(guarded(s.cond, `cx.emit(${lit(s.type)}, ${exprCode(s.payload, scope)});`));
        break;
      case "snapshot":
        out.push(guarded(s.cond, s.snap.text
          ? `cx.snapshot(${lit(s.snap.stream)}, ${exprCode(s.snap.text, scope)}, undefined);`
          : `cx.snapshotParts(${lit(s.snap.stream)}, ${exprCode(s.snap.parts!, scope)});`));
        break;
      case "set":
        out.push(guarded(s.cond, `cx.setVar([${s.key.map((k) => exprCode(k, scope)).join(", ")}], ${exprCode(s.value, scope)});`));
        break;
      case "closeOpen":
        out.push(`${indent}cx.closeOpen(${lit(s.status)}, ${lit(s.detail)}${s.completes?.length ? `, [${s.completes.map(lit).join(", ")}]` : ""});`);
        break;
      case "dispatch":
        // raw original: the events keep the input line as raw, the target's input wrappers run (cx.delegate);
        // raw dispatched: the dispatched message is the raw payload (cx.replay).
        out.push(s.raw === "original"
          ? `${indent}cx.delegate(${lit(s.surface ?? surface)}, ${exprCode(s.message, scope)});`
          : `${indent}cx.replay(${exprCode(s.message, scope)}${s.surface ? `, ${lit(s.surface)}` : ""});`);
        break;
      case "each": {
        const inner = new Set(scope).add(s.as);
        if (s.index) inner.add(s.index);
        out.push(s.index
          ? `${indent}for (const [s_${s.index}, s_${s.as}] of arr(${exprCode(s.each, scope)}).entries()) {`
          : `${indent}for (const s_${s.as} of arr(${exprCode(s.each, scope)})) {`);
        out.push(...stepsCode(s.steps, surface, inner, indent + "  "));
        out.push(`${indent}}`);
        break;
      }
    }
  }
  return out;
}

const MESSAGE_TYPE: Record<string, string> = {
  notification: "Notification",
  request: "ServerRequestMessage",
  clientRequest: "ClientRequestMessage",
  clientNotification: "ClientNotificationMessage",
  response: "JsonRpcResponse",
  clientResponse: "JsonRpcResponse",
};

/** Kind → the name of its generated upstream message type. */
export type UpstreamTypeNames = Record<string, string | undefined>;

export function rowBody(r: RowIR, surface: string): string {
  const lines: string[] = ["const x: any = m;"];
  if (r.when.length) lines.push(`if (!(${r.when.map((c) => condCode(c)).join(" && ")})) return false;`);
  if (r.hold) {
    // A hold row: claims the message (held until the variable is set) only while the variable is unset.
    lines.push(`return cx.hold([${r.hold.map((k) => exprCode(k, new Set())).join(", ")}]);`);
    return lines.join("\n");
  }
  for (const id of r.ids) {
    const value = id.path ? exprCode(id.path, new Set()) : "undefined";
    lines.push(`cx.ref(${lit(id.role)}, ${value}, ${lit(id.op)}, ${lit(id.space)}, ${lit(id.field)}, ${id.required}${id.scope ? `, ${lit(id.scope)}` : ""});`);
  }
  lines.push(...stepsCode(r.steps, surface, new Set(), ""));
  lines.push("return true;");
  return lines.join("\n");
}

export function emitMapper(t: TableIR, upstreamTypesModule: string, typeNames: UpstreamTypeNames, header: string): string {
  const project = new Project({ useInMemoryFileSystem: true });
  const sf: SourceFile = project.createSourceFile(`${t.surface}.gen.ts`, "", { overwrite: true });
  sf.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: "../../src/normalize/table-types.js", namedImports: t.input.length ? ["InputMatch", "RowContext", "SurfaceTable"] : ["RowContext", "SurfaceTable"] });
  sf.addImportDeclaration({ moduleSpecifier: "../../src/helpers.js", namespaceImport: "h" });
  sf.addImportDeclaration({ moduleSpecifier: "../../src/normalize/row-util.js", namedImports: ["arr", "joinKey"] });
  sf.addImportDeclaration({ isTypeOnly: true, moduleSpecifier: upstreamTypesModule, namespaceImport: "U" });

  // Message types of each kind, from the upstream schema.
  const aliases: [string, string][] = [
    ["Notification", typeNames.notification ? `U.${typeNames.notification}` : "{ method: string; params?: unknown }"],
    ["ServerRequestMessage", typeNames.request ? `U.${typeNames.request}` : "{ id: string | number; method: string; params?: unknown }"],
    ["ClientRequestMessage", typeNames.clientRequest ? `U.${typeNames.clientRequest}` : "{ id: string | number; method: string; params?: unknown }"],
    ["ClientNotificationMessage", typeNames.clientNotification ? `U.${typeNames.clientNotification}` : "{ method: string; params?: unknown }"],
  ];
  const kindType = (k: string) => (t.protocol === "tagged" ? `${pascalKind(k)}Message` : MESSAGE_TYPE[k]);
  if (t.protocol === "tagged") {
    for (const k of t.kinds) sf.addTypeAlias({ name: kindType(k.kind), isExported: true, type: typeNames[k.kind] ? `U.${typeNames[k.kind]}` : `{ ${k.tag}: string; [key: string]: unknown }` });
    sf.addTypeAlias({ name: "Message", isExported: true, docs: [`Any message of the ${t.surface} surface.`], type: t.kinds.map((k) => kindType(k.kind)).join(" | ") || "never" });
  } else {
    for (const [name, type] of aliases) sf.addTypeAlias({ name, type, isExported: true });
    sf.addTypeAlias({ name: "JsonRpcResponse", isExported: true, type: "{ id: string | number; result?: unknown; error?: { code: number; message: string; data?: unknown } }" });
    sf.addTypeAlias({
      name: `Message`,
      isExported: true,
      docs: [`Any message of the ${t.surface} surface (both directions).`],
      type: "Notification | ServerRequestMessage | ClientRequestMessage | ClientNotificationMessage | JsonRpcResponse",
    });
  }

  for (const m of t.maps) {
    const outs = [...new Set([...Object.values(m.values), ...(m.def !== undefined ? [m.def] : [])])];
    const outType = outs.map((o) => lit(o)).join(" | ") || "never";
    sf.addVariableStatement({
      declarationKind: VariableDeclarationKind.Const,
      leadingTrivia: `// map "${m.name}" (${t.file}:${m.line})\n`,
      declarations: [{ name: `M_${m.name}`, type: `ReadonlyMap<string, ${outType}>`, initializer: `new Map([${Object.entries(m.values).map(([k, v]) => `[${lit(k)}, ${lit(v)}]`).join(", ")}])` }],
    });
    const retType = m.def !== undefined ? outType : `${outType} | undefined`;
    sf.addFunction({
      name: `map_${m.name}`,
      parameters: [{ name: "v", type: "unknown" }, { name: "d", type: "any", initializer: lit(m.def) }],
      returnType: `${retType}`,
      statements: `return (typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? M_${m.name}.get(String(v)) : undefined) ?? d;`,
    });
  }

  for (const r of t.rows) {
    const tag = t.kinds.find((k) => k.kind === r.kind)?.tag ?? "method";
    const methodType = r.kind === "response" || r.kind === "clientResponse" || r.methods.length !== 1 || r.methods[0] === "*" ? kindType(r.kind) : `Extract<${kindType(r.kind)}, { ${IDENT.test(tag) ? tag : lit(tag)}: ${lit(r.methods[0])} }>`;
    sf.addFunction({
      name: fnName(r.rule),
      docs: [`${t.file}:${r.line} — ${r.kind} ${r.methods.join(", ")}${emittedTypes(r.steps).length ? " → " + emittedTypes(r.steps).join(", ") : ""}${r.description ? `\n${r.description}` : ""}`],
      parameters: [{ name: "m", type: methodType }, { name: "cx", type: "RowContext" }],
      returnType: "boolean",
      statements: rowBody(r, t.surface),
    });
  }

  const byKind = new Map<Kind, Map<string, RowIR[]>>();
  for (const r of t.rows) {
    const km = byKind.get(r.kind) ?? new Map();
    byKind.set(r.kind, km);
    for (const m of r.methods) km.set(m, [...(km.get(m) ?? []), r]);
  }
  const rowsCode = [...byKind].map(([k, km]) =>
    `${k}: {\n${[...km].map(([m, rs]) => `    ${lit(m)}: [${rs.map((r) => `{ rule: ${lit(`${t.surface}#${r.rule}`)}, line: ${r.line}, run: ${fnName(r.rule)} as (m: any, cx: RowContext) => boolean }`).join(", ")}]`).join(",\n")}\n  }`,
  ).join(",\n  ");
  const ignoredByKind = new Map<Kind, [string, string][]>();
  for (const g of t.ignored) ignoredByKind.set(g.kind, [...(ignoredByKind.get(g.kind) ?? []), ...g.methods.map((m) => [m, `${t.surface}#${g.id}`] as [string, string])]);
  const ignoredCode = [...ignoredByKind].map(([k, ms]) => `${k}: {\n${ms.map(([m, id]) => `    ${lit(m)}: ${lit(id)}`).join(",\n")}\n  }`).join(",\n  ");
  const reasons = [
    ...t.ignored.map((g) => `  ${lit(`${t.surface}#${g.id}`)}: ${lit(`${g.reason} (${t.file}:${g.line})`)}`),
    ...t.input.filter((w) => w.ignore).map((w) => `  ${lit(`${t.surface}#input-${w.name}`)}: ${lit(`${w.ignore} (${t.file}:${w.line})`)}`),
  ].join(",\n");
  const sources = t.kinds.map((k) => `${k.kind}: ${lit(k.source)}`).join(", ");
  const tags = t.kinds.map((k) => `${k.kind}: ${lit(k.tag)}`).join(", ");
  if (t.input.length) {
    const body = ["const x: any = line;"];
    for (const w of t.input) {
      const cond = w.when.length ? w.when.map((c) => condCode(c)).join(" && ") : "true";
      const meta = w.meta.length ? `, meta: { ${w.meta.map(([k, e]) => `${IDENT.test(k) ? k : lit(k)}: ${exprCode(e, new Set())}`).join(", ")} }` : "";
      body.push(`// ${t.file}:${w.line} — input wrapper "${w.name}"`);
      body.push(w.ignore
        ? `if (${cond}) return { ignore: ${lit(`${t.surface}#input-${w.name}`)} };`
        : `if (${cond}) return { wrapper: ${lit(w.name)}, message: ${exprCode(w.message!, new Set())}${meta}${w.kind ? `, kind: ${lit(w.kind)}` : ""}${w.type ? `, type: ${lit(w.type)}` : ""} };`);
    }
    body.push("return undefined;");
    sf.addFunction({ name: "input", docs: ["Finds the message inside an input line: the input wrappers of the table, in order. `capture` is the capture wrapper pushLine removed, if any."], parameters: [{ name: "line", type: "unknown" }, { name: "capture", type: "any", hasQuestionToken: true }], returnType: "InputMatch | undefined", statements: body.join("\n") });
  }

  sf.addVariableStatement({
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`The ${t.surface} mapping table (${t.file}), compiled.`],
    declarations: [{
      name: "table",
      type: "SurfaceTable",
      initializer: `{
  surface: ${lit(t.surface)},
  provider: ${lit(t.provider)},
  protocol: ${lit(t.protocol)},
  file: ${lit(t.file)},
  tags: { ${tags} },${t.input.length ? "\n  input," : ""}${t.nonJsonLines === "warning" ? '\n  nonJsonLines: "warning",' : ""}
  upstream: { package: ${lit(t.upstream.package)}, version: ${lit(t.upstream.version)} },
  sources: { ${sources} },
  rows: {
  ${rowsCode}
  },
  ignored: {
  ${ignoredCode}
  },
  ignoreReasons: {
${reasons}
  },
}`,
    }],
  });
  sf.formatText({ indentSize: 2, convertTabsToSpaces: true });
  return `${header}\n${sf.getFullText()}`;
}

/** The event types a row's steps emit (in order, once each; nested each steps included). */
export function emittedTypes(steps: StepIR[]): string[] {
  const out: string[] = [];
  const walk = (ss: StepIR[]) => { for (const s of ss) { if (s.k === "emit" && !out.includes(s.type)) out.push(s.type); else if (s.k === "each") walk(s.steps); } };
  walk(steps);
  return out;
}
