/**
 * One-off mechanical converter (second pass of the DSL v2 rewrite): helper calls that are table features in disguise
 * become the DSL's value operators; the value maps they need are added to the table. Keeps comments.
 * Usage: tsx tools/convert-helpers.ts FILE.yaml…
 */
import { readFileSync, writeFileSync } from "node:fs";
import { isMap, isSeq, parseDocument, Pair, Scalar, YAMLMap, YAMLSeq, type Document, type Node } from "yaml";
import { unpadSeqs } from "./yaml-style.ts";

type Rewrite = (args: unknown[], need: (map: string) => void) => unknown;

const get = (x: unknown, path: string) => ({ $get: x, path });
const variant = (x: unknown) => ({ $variant: x });
const str = (x: unknown) => ({ $str: x });
const planStep = (e: string) => ({
  step: { $first: [str(`$${e}.step`), str(`$${e}.text`), str(`$${e}.content`), ""] },
  status: { $first: [{ $map: "planDone", from: `$${e}.completed` }, { $map: "planStatus", from: `$${e}.status`, default: "pending" }] },
});

const REWRITES: Record<string, Rewrite> = {
  str: ([x]) => str(x),
  joinText: ([x]) => ({ $text: x, join: "\n\n" }),
  listText: ([x]) => ({ $text: x, join: ", ", skipEmpty: true }),
  claudeToolResultText: ([x]) => ({ $text: x, join: "\n", items: "blocks", skipEmpty: true }),
  claudeUserText: ([x]) => ({ $text: x, join: "\n", items: "blocks", skipEmpty: true }),
  cursorText: ([x]) => ({ $text: x, join: "", items: "untypedBlocks" }),
  acpContentText: ([x]) => ({ $first: [str(`${x}.text`), str(`${x}.resource.text`)] }),
  decisionName: ([x]) => ({ $tag: x }),
  cursorToolKind: ([x]) => ({ $tag: x }),
  cursorToolResult: ([x]) => get(variant(x), "result"),
  cursorToolArgs: ([x]) => ({ $first: [get(variant(x), "args"), { $json: get(variant(x), "arguments") }, get(variant(x), "arguments")] }),
  cursorToolStatus: ([x], need) => { need("cursorResultStatus"); return { $map: "cursorResultStatus", from: { $first: [{ $tag: get(variant(x), "result") }, "(none)"] }, default: "failed" }; },
  inc: ([x]) => ({ $add: [x, 1] }),
  appendText: ([a, b]) => ({ $concat: [a, b] }),
  parseJson: ([x]) => ({ $json: x }),
  planSteps: ([x], need) => { need("planDone"); need("planStatus"); return { $list: x, as: "entry", to: planStep("entry") }; },
  acpPlanSteps: ([x], need) => { need("planDone"); need("planStatus"); return { $list: x, as: "entry", to: planStep("entry") }; },
  cursorPlanSteps: ([x], need) => { need("todoStatus"); return { $list: x, as: "todo", to: { step: { $first: [str("$todo.content"), str("$todo.title"), ""] }, status: { $map: "todoStatus", from: "$todo.status", default: "pending" } } }; },
  claudePersistedFiles: ([x]) => ({ $list: x, as: "f", where: { "f.filename": { exists: true }, "f.file_id": { exists: true } }, to: { filename: "$f.filename", fileId: "$f.file_id" } }),
  claudePersistFailures: ([x]) => ({ $list: x, as: "f", where: { "f.filename": { exists: true }, "f.error": { exists: true } }, to: { filename: "$f.filename", error: "$f.error" } }),
  claudeToolItemType: ([name, type], need) => {
    need("claudeBlockToolType"); need("claudeServerToolType"); need("claudeToolItemType");
    return { $first: [{ $map: "claudeBlockToolType", from: type }, { $map: "claudeServerToolType", from: { $join: [type, name] } }, { $map: "claudeToolItemType", from: name, default: "dynamic_tool_call" }] };
  },
  claudeToolRequestType: ([name], need) => { need("claudeToolRequestType"); return { $map: "claudeToolRequestType", from: name, default: "unknown" }; },
  opencodeErrorMessage: ([x]) => ({ $first: [{ $text: get(x, "data.message"), join: "", skipEmpty: true }, { $text: get(x, "message"), join: "", skipEmpty: true }, str(get(x, "name")), { $text: x, join: "" }] }),
};

const CLAUDE_TOOLS = { Bash: "command_execution", BashOutput: "command_execution", KillShell: "command_execution", KillBash: "command_execution", Edit: "file_change", MultiEdit: "file_change", Write: "file_change", NotebookEdit: "file_change", WebSearch: "web_search", WebFetch: "web_search", Task: "collab_agent_tool_call", Agent: "collab_agent_tool_call", TodoWrite: "plan" };
const MAPS: Record<string, { comment: string; spec: Record<string, unknown> }> = {
  planDone: { comment: " a plan entry marked done (`completed: true`) is completed whatever its status", spec: { values: { true: "completed" } } },
  planStatus: { comment: " plan / todo entry status → canonical plan step status", spec: { values: { completed: "completed", in_progress: "inProgress", inProgress: "inProgress" }, default: "pending" } },
  todoStatus: { comment: " Cursor todo status (ACP `in_progress`, stream-json `TODO_STATUS_IN_PROGRESS`) → plan step status; cancelled counts as done", spec: { values: { completed: "completed", cancelled: "completed", in_progress: "inProgress", inprogress: "inProgress", COMPLETED: "completed", CANCELLED: "completed", IN_PROGRESS: "inProgress", TODO_STATUS_COMPLETED: "completed", TODO_STATUS_CANCELLED: "completed", TODO_STATUS_IN_PROGRESS: "inProgress", TODO_STATUS_INPROGRESS: "inProgress", todo_status_completed: "completed", todo_status_cancelled: "completed", todo_status_in_progress: "inProgress" }, default: "pending" } },
  cursorResultStatus: { comment: " the one key of a cursor-agent tool result → item status: success; rejections; no result; any other outcome fails", spec: { values: { "(none)": "completed", success: "completed", rejected: "declined", permissionDenied: "declined", denied: "declined" }, default: "failed" } },
  claudeBlockToolType: { comment: " tool-use block types that say the item type themselves", spec: { values: { mcp_tool_use: "mcp_tool_call" } } },
  claudeServerToolType: { comment: " tools the API runs itself (server_tool_use blocks, keyed `<block type>:<name>`) → item type", spec: { values: { "server_tool_use:web_search": "web_search", "server_tool_use:web_fetch": "web_search", "server_tool_use:code_execution": "command_execution", "server_tool_use:bash_code_execution": "command_execution" } } },
  claudeToolItemType: { comment: " Claude Code tool name → item type; MCP tools (`mcp__<server>__<tool>`) are MCP calls; other tools dynamic_tool_call", spec: { values: CLAUDE_TOOLS, prefixes: { mcp__: "mcp_tool_call" } } },
  claudeToolRequestType: { comment: " the request type of a permission for a tool: command tools, edit tools, AskUserQuestion (a question); MCP and others unknown", spec: { values: { ...Object.fromEntries(Object.entries(CLAUDE_TOOLS).filter(([, t]) => t === "command_execution").map(([k]) => [k, "command_execution_approval"])), ...Object.fromEntries(Object.entries(CLAUDE_TOOLS).filter(([, t]) => t === "file_change").map(([k]) => [k, "file_change_approval"])), AskUserQuestion: "tool_user_input" }, prefixes: { mcp__: "unknown" } } },
};

function walk(doc: Document, node: unknown, need: (m: string) => void): unknown {
  if (isSeq(node)) { node.items = node.items.map((x) => walk(doc, x, need) as Node); return node; }
  if (!isMap(node)) return node;
  const h = (node.items as Pair[]).find((p) => (p.key as Scalar)?.value === "$helper");
  if (h) {
    const name = String((h.value as Scalar).value);
    const rw = REWRITES[name];
    const argsP = (node.items as Pair[]).find((p) => (p.key as Scalar)?.value === "args");
    const args = argsP ? (argsP.value as YAMLSeq).items.map((a) => walk(doc, a, need)) : [];
    if (rw) {
      const js = rw(args.map((a) => (a && typeof a === "object" && "toJSON" in (a as object) ? (a as Node).toJSON() : a instanceof Scalar ? a.value : a)), need);
      const out = doc.createNode(js) as Node;
      const flow = (n: unknown) => { if (isMap(n) || isSeq(n)) { n.flow = true; n.items.forEach((i: any) => flow(isMap(n) ? i.value : i)); } };
      flow(out);
      return out;
    }
    if (argsP) (argsP.value as YAMLSeq).items = args as Node[];
    return node;
  }
  for (const p of node.items as Pair[]) p.value = walk(doc, p.value, need) as Node;
  return node;
}

for (const file of process.argv.slice(2)) {
  const doc = parseDocument(readFileSync(file, "utf8"));
  const root = doc.contents as YAMLMap;
  const needed = new Set<string>();
  const rows = (root.items as Pair[]).find((p) => (p.key as Scalar).value === "rows")!;
  walk(doc, rows.value, (m) => needed.add(m));
  let maps = (root.items as Pair[]).find((p) => (p.key as Scalar).value === "maps");
  if (needed.size && !maps) {
    maps = new Pair(new Scalar("maps"), new YAMLMap());
    (maps.key as Scalar).spaceBefore = true;
    root.items.splice(root.items.indexOf((root.items as Pair[]).find((p) => (p.key as Scalar).value === "rows")!), 0, maps);
  }
  for (const m of needed) {
    const mm = maps!.value as YAMLMap;
    if ((mm.items as Pair[]).some((p) => (p.key as Scalar).value === m)) continue;
    const node = doc.createNode(MAPS[m].spec) as YAMLMap;
    for (const p of node.items as Pair[]) if (isMap(p.value)) p.value.flow = true;
    const pair = new Pair(new Scalar(m), node);
    (pair.key as Scalar).commentBefore = MAPS[m].comment;
    mm.items.push(pair);
  }
  writeFileSync(file, unpadSeqs(doc.toString({ lineWidth: 0, flowCollectionPadding: true })));
  console.error(`converted helpers in ${file}${needed.size ? ` (+ maps ${[...needed].join(", ")})` : ""}`);
}
