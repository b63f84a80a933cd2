/**
 * The viewer page's stylesheet (inlined into every page). Colours are variables: a light and a dark set, the
 * dark one used when the system prefers it (prefers-color-scheme) unless the page's theme toggle says otherwise
 * (html[data-theme]). The three panes sit side by side, each boundary draggable; below 1100 px the timeline and
 * the native pane stack to the right of the transcript.
 */
const LIGHT = `color-scheme:light;
--fg:#1f2328;--muted:#57606a;--faint:#6e7781;--bg:#f6f8fa;--panel:#fff;--panel2:#f6f8fa;--border:#d0d7de;--border2:#8c959f;
--hdr:#24292f;--hdr-fg:#fff;--hdr-muted:#c9d1d9;--accent:#0969da;--sel:#0969da;--sel-fg:#fff;--related:#eef6ff;--hover:#f6f8fa;--rowline:#f0f2f4;
--turn:#eaeef2;--turn-fg:#424a53;--user:#ddf4ff;--user-b:#b6e3ff;--think:#fbfbfc;--warn:#fff8c5;--warn-fg:#9a6700;--err:#ffebe9;--err-fg:#cf222e;
--good:#dafbe1;--good-fg:#1a7f37;--code:#f6f8fa;--pill:#eaeef2;--pill-fg:#424a53;--add:#dafbe1;--add-fg:#116329;--del:#ffebe9;--del-fg:#82071e;--hunk:#8250df;
--tool:#8250df;--text:#1a7f37;--jk:#0550ae;--js:#0a3069;--jn:#953800;--jb:#cf222e;--split:#d0d7de;`;
const DARK = `color-scheme:dark;
--fg:#e6edf3;--muted:#9198a1;--faint:#848d97;--bg:#010409;--panel:#0d1117;--panel2:#161b22;--border:#30363d;--border2:#6e7681;
--hdr:#161b22;--hdr-fg:#e6edf3;--hdr-muted:#9198a1;--accent:#4493f8;--sel:#1f6feb;--sel-fg:#fff;--related:#12263f;--hover:#161b22;--rowline:#21262d;
--turn:#21262d;--turn-fg:#c9d1d9;--user:#0c2d4a;--user-b:#1f4f7a;--think:#11151b;--warn:#2e2509;--warn-fg:#d29922;--err:#3a1214;--err-fg:#ff7b72;
--good:#0f2d1a;--good-fg:#3fb950;--code:#161b22;--pill:#21262d;--pill-fg:#c9d1d9;--add:#12361f;--add-fg:#7ee787;--del:#3d1418;--del-fg:#ffa198;--hunk:#d2a8ff;
--tool:#a371f7;--text:#3fb950;--jk:#79c0ff;--js:#a5d6ff;--jn:#ffa657;--jb:#ff7b72;--split:#30363d;`;

export const VIEWER_CSS = `
:root{${LIGHT}}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){${DARK}}}
:root[data-theme=dark]{${DARK}}
*{box-sizing:border-box}
html,body{margin:0;height:100%}
body{display:flex;flex-direction:column;font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);overflow:hidden}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{margin:0;white-space:pre-wrap;word-break:break-word}
a{color:var(--accent)}
header{flex:none;display:flex;flex-wrap:wrap;align-items:center;gap:4px 12px;padding:6px 12px;background:var(--hdr);color:var(--hdr-fg);min-width:0}
header h1{font-size:15px;margin:0;font-weight:600;overflow-wrap:anywhere}
header .meta{color:var(--hdr-muted);font-size:12px;min-width:0;overflow-wrap:anywhere}
.counts{display:flex;flex-wrap:wrap;gap:4px 6px;margin-left:auto}
.count{border:0;border-radius:10px;padding:2px 9px;font-size:12px;cursor:pointer;background:#57606a;color:#fff}
.count b{font-weight:700}
.count.zero{opacity:.55}
.count.active{outline:2px solid #fff;outline-offset:1px}
.count.violation{background:#8250df}.count.error{background:#cf222e}.count.warning{background:#9a6700}.count.unknown{background:#0969da}.count.redaction{background:#1a7f37}.count.repair{background:#6e7781}
.count.unverified{background:#6e7781;font-style:italic}
#cut{flex:none;padding:4px 12px;font-size:12px;background:var(--warn);color:var(--warn-fg);border-bottom:1px solid var(--warn-fg);overflow-wrap:anywhere}
#theme{border:1px solid var(--hdr-muted);background:transparent;color:var(--hdr-fg);border-radius:10px;padding:1px 9px;font-size:12px;cursor:pointer}
main{flex:1;min-height:0;min-width:0;display:grid;grid-template-columns:minmax(160px,var(--w1,42fr)) 6px minmax(160px,var(--w2,30fr)) 6px minmax(160px,var(--w3,28fr));grid-template-rows:minmax(0,1fr)}
section{display:flex;flex-direction:column;min-height:0;min-width:0;background:var(--panel);overflow:hidden}
.split{background:var(--split);cursor:col-resize;touch-action:none;outline:none}
.split:hover,.split:focus-visible,.split.dragging{background:var(--accent)}
main[data-native=empty]{grid-template-columns:minmax(160px,var(--w1,42fr)) 6px minmax(160px,var(--w2,30fr)) 0 28px}
main[data-native=empty]>#split-2{visibility:hidden}
main[data-native=empty]>#native>.scroll{display:none}
main[data-native=empty]>#native>h2{writing-mode:vertical-rl;padding:10px 5px;height:100%;border-bottom:0}
@media (max-width:1100px){
main{grid-template-columns:minmax(160px,var(--n1,1fr)) 6px minmax(160px,var(--n2,1fr));grid-template-rows:minmax(120px,var(--r1,1fr)) 6px minmax(120px,var(--r2,1fr))}
#transcript{grid-column:1;grid-row:1/4}
#split-1{grid-column:2;grid-row:1/4}
#timeline{grid-column:3;grid-row:1}
#split-2{grid-column:3;grid-row:2;cursor:row-resize}
#native{grid-column:3;grid-row:3}
main[data-native=empty]{grid-template-columns:minmax(160px,var(--n1,1fr)) 6px minmax(160px,var(--n2,1fr));grid-template-rows:minmax(120px,1fr) 0 26px}
main[data-native=empty]>#native>h2{writing-mode:horizontal-tb;padding:5px 10px;height:auto}
}
section>h2{flex:none;margin:0;padding:5px 10px;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);background:var(--panel2);border-bottom:1px solid var(--border);display:flex;gap:8px;align-items:center;white-space:nowrap;overflow:hidden}
.scroll{overflow:auto;flex:1;min-height:0}
#transcript .scroll{padding:8px 10px}
.turn{margin:10px 0 4px;padding:3px 8px;border-radius:4px;background:var(--turn);color:var(--turn-fg);font-weight:600;cursor:pointer;font-size:12px}
.turn .state{font-weight:400;margin-left:8px}
.turn.selected{outline:2px solid var(--sel);outline-offset:1px}
.card{border:1px solid var(--border);border-radius:6px;margin:6px 0;padding:6px 8px;background:var(--panel);cursor:pointer;min-width:0}
.card:hover{border-color:var(--border2)}
.card.selected{outline:2px solid var(--sel);outline-offset:1px}
.card .hd{display:flex;gap:6px;align-items:baseline;flex-wrap:wrap}
.card .kind{font-size:11px;text-transform:uppercase;color:var(--muted);font-weight:600}
.card .title{font-weight:600;word-break:break-word}
.card .dur{color:var(--muted);font-size:11px}
.card.user{background:var(--user);border-color:var(--user-b)}
.card.text{border-left:3px solid var(--text)}
.card.thinking{background:var(--think);color:var(--muted)}
.card.tool{border-left:3px solid var(--tool)}
.card.permission,.card.question,.card.request{border-left:3px solid var(--warn-fg);background:var(--warn)}
.card.request{border-left-style:dashed}
.card.error{border-left:3px solid var(--err-fg);background:var(--err)}
.card.notice{border-left:3px solid var(--warn-fg)}
.card.notice.retrying{background:var(--warn)}
.card.usage,.card.status{color:var(--muted);font-size:12px}
.card .body{margin-top:4px;min-width:0}
.card .lbl{font-size:11px;color:var(--muted);margin-top:4px}
.card pre.out{background:var(--code);border-radius:4px;padding:4px 6px;max-height:320px;overflow:auto}
.card .gates{margin:4px 0}
.card .gates>.card{margin:4px 0}
.opts{display:flex;flex-wrap:wrap;gap:0 4px;margin:4px 0;align-items:baseline;font-size:12px}
.opts .lbl{margin-right:2px}
.opt{color:var(--muted);cursor:default}
.opt+.opt::before{content:"·";margin-right:4px;color:var(--muted);font-weight:400}
.opt.chosen{color:var(--fg);font-weight:700}
.opt.chosen::after{content:" ✓"}
.decision{font-size:12px;margin:2px 0}
.children{margin-left:14px;padding-left:8px;border-left:2px dashed var(--border)}
.pill{border-radius:9px;padding:0 7px;font-size:11px;background:var(--pill);color:var(--pill-fg)}
.pill.good{background:var(--good);color:var(--good-fg)}
.pill.bad{background:var(--err);color:var(--err-fg)}
.pill.busy{background:var(--warn);color:var(--warn-fg)}
.diff .add{background:var(--add);color:var(--add-fg);display:block}
.diff .del{background:var(--del);color:var(--del-fg);display:block}
.diff .hunk{color:var(--hunk);display:block}
.plan li{list-style:none}
.plan .st{display:inline-block;width:1.6em}
details>summary{cursor:pointer;color:var(--muted)}
.md{overflow-wrap:anywhere}
.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md p{margin:4px 0}
.md ul,.md ol{margin:4px 0;padding-left:22px}
.md li.task{list-style:none;margin-left:-18px}
.md .md-h{margin:8px 0 4px;font-size:14px}
.md h3.md-h{font-size:15px}
.md code{background:var(--code);border-radius:3px;padding:0 3px}
.md pre.md-code{background:var(--code);border-radius:4px;padding:4px 6px;margin:4px 0;overflow:auto}
.md pre.md-code code{background:none;padding:0}
.md blockquote{margin:4px 0;padding-left:8px;border-left:3px solid var(--border);color:var(--muted)}
.md table{border-collapse:collapse;margin:4px 0;display:block;overflow:auto}
.md th,.md td{border:1px solid var(--border);padding:2px 6px}
.md hr{border:0;border-top:1px solid var(--border)}
.md .md-link{color:var(--accent);text-decoration:underline}
.md .md-url{color:var(--muted);font-size:12px;word-break:break-all}
.more{margin:10px;color:var(--muted)}
.filters{flex:none;display:flex;flex-wrap:wrap;gap:4px;padding:4px 6px;border-bottom:1px solid var(--border);background:var(--panel2);min-width:0}
.filters select,.filters input,.filters button,.multi>summary{font-size:12px;max-width:100%;min-width:0}
#f-search{flex:1 1 140px}
#f-item{flex:0 1 130px}
.multi{position:relative}
.multi>summary{list-style:none;border:1px solid var(--border2);border-radius:3px;padding:1px 6px;background:var(--panel);color:var(--fg);white-space:nowrap;max-width:180px;overflow:hidden;text-overflow:ellipsis}
.multi>summary::-webkit-details-marker{display:none}
.multi>summary::after{content:" ▾"}
.multi .menu{position:fixed;z-index:5;max-width:calc(100vw - 8px);background:var(--panel);border:1px solid var(--border2);border-radius:4px;padding:4px;max-height:60vh;overflow:auto;min-width:220px;box-shadow:0 4px 12px rgba(0,0,0,.25)}
.multi .menu label{display:flex;gap:6px;align-items:center;white-space:nowrap;padding:1px 2px;font-size:12px;cursor:pointer}
.multi .menu label:hover{background:var(--hover)}
.multi .menu .n{color:var(--faint);margin-left:auto;padding-left:8px}
.multi .menu .acts{display:flex;gap:4px;margin-bottom:4px}
#tl-note{font-size:11px;color:var(--muted);padding:0 8px;text-transform:none;letter-spacing:0}
.note{font-size:11px;padding:0 6px;flex:none}
#tl-hidden{color:var(--warn-fg)}#tl-stream{color:var(--err-fg)}
#tl-scroll{position:relative;outline:none}
#tl-spacer{position:relative}
.row{position:absolute;left:0;right:0;height:22px;line-height:22px;padding:0 6px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;cursor:pointer;border-bottom:1px solid var(--rowline);font-size:12px}
.row:hover{background:var(--hover)}
.row.related{background:var(--related)}
.row.selected{background:var(--sel);color:var(--sel-fg)}
.row .seq{display:inline-block;min-width:4.5em;color:var(--faint);text-align:right;margin-right:6px}
.row.selected .seq,.row.selected .sum,.row.selected .ids{color:var(--sel-fg)}
.row .type{font-weight:600;margin-right:6px}
.row .ids{color:var(--faint);margin-right:6px}
.row .sum{color:var(--muted)}
.badge{display:inline-block;border-radius:3px;padding:0 4px;margin-right:3px;font-size:10px;line-height:15px;color:#fff;font-weight:700}
.badge.violation{background:#8250df}.badge.error{background:#cf222e}.badge.warning{background:#9a6700}.badge.unknown{background:#0969da}.badge.redaction{background:#1a7f37}.badge.repair{background:#6e7781}
#native .scroll{padding:8px 10px}
#native .kv{display:grid;grid-template-columns:auto minmax(0,1fr);gap:2px 10px;margin-bottom:8px}
#native .kv dt{color:var(--muted)}
#native .kv dd{margin:0;word-break:break-all}
#native .chips{display:flex;flex-wrap:wrap;gap:3px;margin:4px 0 8px}
.chip{border:1px solid var(--border);border-radius:10px;padding:0 6px;font-size:11px;cursor:pointer;background:var(--panel)}
.chip.current{background:var(--sel);color:var(--sel-fg);border-color:var(--sel)}
#native pre.json{background:var(--code);border-radius:4px;padding:6px}
#native h3{font-size:12px;margin:10px 0 4px;color:var(--turn-fg)}
.problem{border-radius:4px;padding:3px 6px;margin:3px 0;font-size:12px;background:var(--warn)}
.problem.error,.problem.violation{background:var(--err)}
.nav button{font-size:11px}
.empty{color:var(--faint);padding:12px}
.empty button{margin-left:6px}
#tl-empty{position:absolute;top:0;left:0;right:0}
.j-k{color:var(--jk)}.j-s{color:var(--js)}.j-n{color:var(--jn)}.j-b{color:var(--jb)}
table.matrix{border-collapse:collapse;margin:12px;background:var(--panel)}
table.matrix th,table.matrix td{border:1px solid var(--border);padding:3px 8px;font-size:12px;text-align:left;vertical-align:top}
table.matrix th{background:var(--panel2);position:sticky;top:0}
table.matrix td.y{background:var(--good);text-align:center}
table.matrix td.n{color:var(--faint);text-align:center}
.page{padding:8px 16px}
`;
