// A JVM host for `agentnorm bridge` (docs/bridge.md): runs one prompt against a live coding agent, answers its
// permission requests, prints the turn as it streams, then closes the bridge. JDK 17+, one file, no dependencies:
//
//   java BridgeHost.java [--prompt TEXT] [--decision allow_once] -- <bridge command line…>
//   java BridgeHost.java --prompt "Create notes.txt" -- npx agentnorm bridge --agent codex --cwd /my/project
//
// Exit code: 0 if the turn completed, 1 otherwise (2: bad usage).

import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicInteger;

public class BridgeHost {
    private final Process bridge;
    private final Writer stdin;
    private final String wantedDecision;
    private final AtomicInteger nextId = new AtomicInteger(1);
    private final CountDownLatch ready = new CountDownLatch(1), turnEnded = new CountDownLatch(1), exited = new CountDownLatch(1);
    private final Map<String, String> toolStatus = new HashMap<>(); // stepId → last printed status
    private volatile String turnState;   // the turn's end state ("completed", "interrupted", …)
    private boolean midLine;             // the last thing printed was streamed text without a newline

    BridgeHost(Process bridge, String wantedDecision) {
        this.bridge = bridge;
        this.stdin = new BufferedWriter(new OutputStreamWriter(bridge.getOutputStream(), StandardCharsets.UTF_8));
        this.wantedDecision = wantedDecision;
    }

    public static void main(String[] args) throws Exception {
        String prompt = "Say hello.", decision = "allow_once";
        int i = 0;
        for (; i < args.length && !args[i].equals("--"); i++) {
            if (args[i].equals("--prompt") && i + 1 < args.length) prompt = args[++i];
            else if (args[i].equals("--decision") && i + 1 < args.length) decision = args[++i];
            else usage("unknown option " + args[i]);
        }
        if (i + 1 >= args.length) usage("the bridge command line goes after --");
        List<String> command = Arrays.asList(args).subList(i + 1, args.length);

        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BridgeHost host = new BridgeHost(process, decision);
        Thread reader = new Thread(host::readLoop, "bridge-reader");
        reader.setDaemon(true);
        reader.start();
        System.exit(host.run(prompt));
    }

    static void usage(String why) {
        System.err.println("BridgeHost: " + why + "\nusage: java BridgeHost.java [--prompt TEXT] [--decision allow_once] -- <bridge command line…>");
        System.exit(2);
    }

    /** The host's side of the conversation: ready → prompt → (answers, on the reader thread) → turn end → close. */
    int run(String prompt) throws Exception {
        if (!ready.await(120, TimeUnit.SECONDS) || exited.getCount() == 0) {
            System.err.println("BridgeHost: the bridge did not become ready");
            stop();
            return 1;
        }
        send("prompt", "\"text\":" + quote(prompt));
        turnEnded.await(); // released at the turn's end, or when the bridge's stdout ends
        if (exited.getCount() > 0) {
            send("close", null);
            if (!exited.await(30, TimeUnit.SECONDS)) System.err.println("BridgeHost: no exit line after close");
        }
        stop();
        return "completed".equals(turnState) ? 0 : 1;
    }

    /** Wait for the process to end; destroy it (SIGTERM, then SIGKILL) if it does not. */
    void stop() throws InterruptedException {
        try { stdin.close(); } catch (IOException ignored) { }
        if (bridge.waitFor(10, TimeUnit.SECONDS)) return;
        bridge.destroy();
        if (!bridge.waitFor(5, TimeUnit.SECONDS)) bridge.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }

    /** One command line to the bridge's stdin: {"id":"N","cmd":…, fields}. Called from both threads. */
    synchronized void send(String cmd, String fields) {
        String line = "{\"id\":\"" + nextId.getAndIncrement() + "\",\"cmd\":" + quote(cmd) + (fields == null ? "" : "," + fields) + "}";
        try {
            stdin.write(line + "\n");
            stdin.flush();
        } catch (IOException e) {
            System.err.println("BridgeHost: cannot send " + cmd + ": " + e.getMessage());
        }
    }

    /** The reader thread: the bridge's stdout, one line at a time, dispatched by prefix. */
    void readLoop() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(bridge.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                try {
                    if (line.startsWith("[CHAT_EVENT] ")) onChatEvent(Json.object(line.substring(13)));
                    else if (line.startsWith("[BRIDGE] ")) onControl(Json.object(line.substring(9)), line.substring(9));
                    else System.err.println("BridgeHost: protocol error, unexpected line: " + line);
                } catch (IllegalArgumentException e) {
                    System.err.println("BridgeHost: protocol error, " + e.getMessage() + ": " + line);
                }
            }
        } catch (IOException e) {
            System.err.println("BridgeHost: reading the bridge failed: " + e.getMessage());
        } finally { // stdout ended: nothing more will come, release every wait
            exited.countDown();
            ready.countDown();
            turnEnded.countDown();
        }
    }

    /** Control lines: ready, ack, error (of our commands) and exit; all logged to stderr as they came. */
    void onControl(Map<String, Object> c, String raw) {
        String type = Json.str(c, "type");
        System.err.println("bridge " + (type.isEmpty() ? "?" : type) + ": " + raw);
        switch (type) {
            case "ready" -> ready.countDown();
            case "exit" -> { exited.countDown(); turnEnded.countDown(); }
            default -> { } // ack, error: logged above
        }
    }

    void onChatEvent(Map<String, Object> e) {
        String kind = Json.str(e, "kind"), phase = Json.str(e, "phase");
        switch (kind) {
            case "text" -> {
                if ("delta".equals(phase) && "assistant".equals(Json.str(e, "role"))) {
                    System.out.print(Json.str(e, "text"));
                    System.out.flush();
                    midLine = true;
                }
            }
            case "permission" -> { if ("started".equals(phase)) answer(Json.map(e.get("permission"))); }
            case "tool" -> {
                Map<String, Object> tool = Json.map(e.get("tool"));
                String status = Json.str(tool, "status"), title = Json.str(tool, "title");
                // print a tool when its status changes, not on every update
                if (!status.equals(toolStatus.put(Json.str(e, "stepId"), status)))
                    println("tool: " + (title.isEmpty() ? Json.str(tool, "name") : title) + " [" + status + "]");
            }
            case "status" -> {
                Map<String, Object> status = Json.map(e.get("status"));
                if ("turn".equals(Json.str(status, "scope")) && ("completed".equals(phase) || "failed".equals(phase))) {
                    turnState = Json.str(status, "state");
                    println("turn: " + turnState);
                    turnEnded.countDown();
                }
            }
            default -> { } // thinking, terminal, diff, usage, …: not shown here
        }
    }

    /** Answer a permission request: the option with the wanted decision, else the first "allow…" option. */
    void answer(Map<String, Object> permission) {
        String decision = null;
        Object options = permission.get("options");
        if (options instanceof List<?> list) {
            for (Object o : list) if (wantedDecision.equals(Json.str(Json.map(o), "decision"))) { decision = wantedDecision; break; }
            if (decision == null)
                for (Object o : list) if (Json.str(Json.map(o), "decision").startsWith("allow")) { decision = Json.str(Json.map(o), "decision"); break; }
        }
        if (decision == null) decision = wantedDecision; // no options offered: the bridge checks the decision itself
        println("permission: " + Json.str(permission, "detail") + " → " + decision);
        send("answer", "\"requestId\":" + quote(Json.str(permission, "requestId")) + ",\"decision\":" + quote(decision));
    }

    void println(String s) {
        if (midLine) System.out.println();
        midLine = false;
        System.out.println(s);
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> { if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch)); else b.append(ch); }
            }
        }
        return b.append('"').toString();
    }

    /** A minimal JSON reader: objects → Map, arrays → List, strings, numbers → Double, true/false, null. */
    static final class Json {
        private final String s;
        private int i;
        private Json(String s) { this.s = s; }

        static Map<String, Object> object(String text) {
            Json p = new Json(text);
            try {
                Object v = p.value();
                p.ws();
                if (p.i != text.length() || !(v instanceof Map)) throw new IllegalArgumentException("not a JSON object");
                return map(v);
            } catch (IndexOutOfBoundsException | NumberFormatException e) {
                throw p.bad();
            }
        }
        @SuppressWarnings("unchecked")
        static Map<String, Object> map(Object o) { return o instanceof Map ? (Map<String, Object>) o : Map.of(); }
        static String str(Map<String, Object> m, String key) { return m.get(key) instanceof String v ? v : ""; }

        private void ws() { while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++; }
        private IllegalArgumentException bad() { return new IllegalArgumentException("bad JSON at " + i); }
        private void expect(char c) { ws(); if (i >= s.length() || s.charAt(i) != c) throw bad(); i++; }

        private Object value() {
            ws();
            if (i >= s.length()) throw bad();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++; ws();
                if (s.charAt(i) == '}') { i++; return m; }
                do { ws(); String k = string(); expect(':'); m.put(k, value()); ws(); } while (s.charAt(i++) == ',');
                if (s.charAt(i - 1) != '}') throw bad();
                return m;
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++; ws();
                if (s.charAt(i) == ']') { i++; return l; }
                do { l.add(value()); ws(); } while (s.charAt(i++) == ',');
                if (s.charAt(i - 1) != ']') throw bad();
                return l;
            }
            if (c == '"') return string();
            for (String lit : new String[] {"true", "false", "null"})
                if (s.startsWith(lit, i)) { i += lit.length(); return lit.equals("null") ? null : Boolean.valueOf(lit); }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            if (start == i) throw bad();
            return Double.valueOf(s.substring(start, i));
        }

        private String string() {
            if (s.charAt(i) != '"') throw bad();
            StringBuilder b = new StringBuilder();
            for (i++; s.charAt(i) != '"'; i++) {
                char c = s.charAt(i);
                if (c != '\\') { b.append(c); continue; }
                c = s.charAt(++i);
                switch (c) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> { b.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16)); i += 4; }
                    default -> b.append(c); // \" \\ \/
                }
            }
            i++;
            return b.toString();
        }
    }
}
