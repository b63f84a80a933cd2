/** The viewer page's stylesheet (inlined into every page). */
export const VIEWER_CSS = `
*{box-sizing:border-box}
html,body{margin:0;height:100%;display:flex;flex-direction:column;font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#f6f8fa}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
pre{margin:0;white-space:pre-wrap;word-break:break-word}
header{flex:none;display:flex;flex-wrap:wrap;align-items:center;gap:8px 14px;padding:6px 12px;background:#24292f;color:#fff}
header h1{font-size:15px;margin:0;font-weight:600}
header .meta{color:#c9d1d9;font-size:12px}
.counts{display:flex;gap:6px;margin-left:auto}
.count{border:0;border-radius:10px;padding:2px 9px;font-size:12px;cursor:pointer;background:#57606a;color:#fff}
.count b{font-weight:700}
.count.zero{opacity:.55}
.count.violation{background:#8250df}.count.error{background:#cf222e}.count.warning{background:#bf8700}.count.unknown{background:#0969da}.count.redaction{background:#1a7f37}.count.repair{background:#6e7781}
.count.unverified{background:#6e7781;font-style:italic}
main{display:grid;grid-template-columns:minmax(0,42fr) minmax(0,30fr) minmax(0,28fr);flex:1;min-height:0}
html{display:block}
section{display:flex;flex-direction:column;min-height:0;border-right:1px solid #d0d7de;background:#fff}
section>h2{margin:0;padding:5px 10px;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#57606a;background:#f6f8fa;border-bottom:1px solid #d0d7de;display:flex;gap:8px;align-items:center}
.scroll{overflow:auto;flex:1;min-height:0}
#transcript .scroll{padding:8px 10px}
.turn{margin:10px 0 4px;padding:3px 8px;border-radius:4px;background:#eaeef2;color:#424a53;font-weight:600;cursor:pointer;font-size:12px}
.turn .state{font-weight:400;margin-left:8px}
.card{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:6px 8px;background:#fff;cursor:pointer}
.card:hover{border-color:#8c959f}
.card.selected{outline:2px solid #0969da;outline-offset:1px}
.card .hd{display:flex;gap:6px;align-items:baseline;flex-wrap:wrap}
.card .kind{font-size:11px;text-transform:uppercase;color:#57606a;font-weight:600}
.card .title{font-weight:600;word-break:break-word}
.card .dur{color:#57606a;font-size:11px}
.card.user{background:#ddf4ff;border-color:#b6e3ff}
.card.text{border-left:3px solid #1a7f37}
.card.thinking{background:#fbfbfc;color:#57606a}
.card.tool{border-left:3px solid #8250df}
.card.permission,.card.question{border-left:3px solid #bf8700;background:#fff8c5}
.card.error{border-left:3px solid #cf222e;background:#ffebe9}
.card.notice{border-left:3px solid #bf8700}
.card.usage,.card.status{color:#57606a;font-size:12px}
.card .body{margin-top:4px}
.card .lbl{font-size:11px;color:#57606a;margin-top:4px}
.card pre.out{background:#f6f8fa;border-radius:4px;padding:4px 6px;max-height:320px;overflow:auto}
.children{margin-left:14px;padding-left:8px;border-left:2px dashed #d0d7de}
.pill{border-radius:9px;padding:0 7px;font-size:11px;background:#eaeef2;color:#424a53}
.pill.good{background:#dafbe1;color:#1a7f37}
.pill.bad{background:#ffebe9;color:#cf222e}
.pill.busy{background:#fff8c5;color:#9a6700}
.diff .add{background:#dafbe1;color:#116329;display:block}
.diff .del{background:#ffebe9;color:#82071e;display:block}
.diff .hunk{color:#8250df;display:block}
.plan li{list-style:none}
.plan .st{display:inline-block;width:1.6em}
details>summary{cursor:pointer;color:#57606a}
.more{margin:10px;color:#57606a}
.filters{display:flex;flex-wrap:wrap;gap:4px;padding:4px 6px;border-bottom:1px solid #d0d7de;background:#f6f8fa}
.filters select,.filters input{font-size:12px;max-width:150px}
#tl-note{font-size:11px;color:#57606a;padding:0 8px}
#tl-scroll{position:relative;outline:none}
#tl-spacer{position:relative}
.row{position:absolute;left:0;right:0;height:22px;line-height:22px;padding:0 6px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;cursor:pointer;border-bottom:1px solid #f0f2f4;font-size:12px}
.row:hover{background:#f6f8fa}
.row.related{background:#eef6ff}
.row.selected{background:#0969da;color:#fff}
.row .seq{display:inline-block;min-width:4.5em;color:#6e7781;text-align:right;margin-right:6px}
.row.selected .seq,.row.selected .sum,.row.selected .ids{color:#fff}
.row .type{font-weight:600;margin-right:6px}
.row .ids{color:#6e7781;margin-right:6px}
.row .sum{color:#57606a}
.badge{display:inline-block;border-radius:3px;padding:0 4px;margin-right:3px;font-size:10px;line-height:15px;color:#fff;font-weight:700}
.badge.violation{background:#8250df}.badge.error{background:#cf222e}.badge.warning{background:#bf8700}.badge.unknown{background:#0969da}.badge.redaction{background:#1a7f37}.badge.repair{background:#6e7781}
#native .scroll{padding:8px 10px}
#native .kv{display:grid;grid-template-columns:auto 1fr;gap:2px 10px;margin-bottom:8px}
#native .kv dt{color:#57606a}
#native .kv dd{margin:0;word-break:break-all}
#native .chips{display:flex;flex-wrap:wrap;gap:3px;margin:4px 0 8px}
.chip{border:1px solid #d0d7de;border-radius:10px;padding:0 6px;font-size:11px;cursor:pointer;background:#fff}
.chip.current{background:#0969da;color:#fff;border-color:#0969da}
#native pre.json{background:#f6f8fa;border-radius:4px;padding:6px}
#native h3{font-size:12px;margin:10px 0 4px;color:#424a53}
.problem{border-radius:4px;padding:3px 6px;margin:3px 0;font-size:12px;background:#fff8c5}
.problem.error,.problem.violation{background:#ffebe9}
.nav button{font-size:11px}
.empty{color:#6e7781;padding:12px}
.j-k{color:#0550ae}.j-s{color:#0a3069}.j-n{color:#953800}.j-b{color:#cf222e}
table.matrix{border-collapse:collapse;margin:12px;background:#fff}
table.matrix th,table.matrix td{border:1px solid #d0d7de;padding:3px 8px;font-size:12px;text-align:left;vertical-align:top}
table.matrix th{background:#f6f8fa;position:sticky;top:0}
table.matrix td.y{background:#dafbe1;text-align:center}
table.matrix td.n{color:#afb8c1;text-align:center}
.page{padding:8px 16px}
`;
