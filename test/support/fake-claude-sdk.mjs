/**
 * A stand-in for the Agent SDK's module (`claudeSdk.module`), for the claude-sdk driver's main-suite tests: its
 * query() replays a recording of the real SDK (fixtures/recorded/claude-sdk/…: capture lines) over the same
 * interface the driver uses — the prompt stream, canUseTool with an AbortSignal, spawnClaudeCodeProcess (a `sleep`
 * that stands for Claude Code, so process supervision is exercised), interrupt(), setPermissionMode(), setModel().
 * The real SDK is tested by test/live/claude.test.ts.
 *
 * makeSdk(lines, script?) → { module, calls }: `calls` records what the driver asked (interrupts, modes, models,
 * permission results). script.withdraw: abort the nth (1-based) permission's signal instead of waiting for it.
 */
export function makeSdk(lines, script = {}) {
  const calls = { interrupts: 0, modes: [], models: [], results: [], spawned: undefined, sessionId: undefined, resume: undefined };
  const module = {
    query({ prompt, options }) {
      calls.sessionId = options.sessionId;
      calls.resume = options.resume;
      const proc = options.spawnClaudeCodeProcess({ command: "sleep", args: ["600"], cwd: options.cwd, env: options.env });
      calls.spawned = proc;
      let interrupted = false;
      let wake;
      const it = prompt[Symbol.asyncIterator]();
      async function* messages() {
        let permissions = 0;
        const sid = options.sessionId ?? options.resume;
        for (const l of lines) {
          if (l.dir === "out" && !l.channel) {
            const next = await it.next();
            if (next.done) return;
            continue;
          }
          if (l.channel === "permission" && l.dir === "in") {
            permissions++;
            const ac = new AbortController();
            const p = options.canUseTool(l.message.toolName, l.message.input, { ...l.message.options, signal: ac.signal });
            if (script.withdraw === permissions) ac.abort();
            const interruptedP = new Promise((r) => { wake = r; });
            const result = await Promise.race([p, interruptedP.then(() => p)]);
            calls.results.push(result);
            if (interrupted || result?.interrupt) {
              yield { type: "result", subtype: "error_during_execution", is_error: true, session_id: sid, uuid: "00000000-0000-4000-8000-00000000ffff", terminal_reason: "aborted_tools", usage: {}, duration_ms: 1, num_turns: 1 };
              return;
            }
            continue;
          }
          if (l.channel) continue;
          const m = JSON.parse(JSON.stringify(l.message));
          if (m.session_id !== undefined) m.session_id = sid;
          yield m;
        }
        // like the SDK: the iteration ends when the prompt stream ends
        await it.next();
      }
      const gen = messages();
      return {
        [Symbol.asyncIterator]: () => gen,
        initializationResult: async () => ({ commands: [] }),
        interrupt: async () => { calls.interrupts++; interrupted = true; wake?.(); },
        setPermissionMode: async (m) => { calls.modes.push(m); },
        setModel: async (m) => { calls.models.push(m); },
        close: () => { proc.kill("SIGTERM"); },
      };
    },
  };
  return { module, calls };
}
