/** The drift page's whole style sheet, inlined in its `<style>`: the page loads nothing else and runs no script. */
export const DRIFT_HTML_STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #656d76; --line: #d0d7de; --paper: #ffffff; --ground: #f3f5f8;
  --ins: #c7f0d0; --ins-ink: #0b4a1e; --del: #ffd2cf; --del-ink: #7d1414; --diff: #e8890c; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; background: var(--ground); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
body > * { max-width: 1500px; margin-left: auto; margin-right: auto; }
code, pre, .json, .v, .signature, .id { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 13px; }
h1 { font-size: 26px; margin: 0 0 8px; }
h2 { font-size: 19px; margin: 0 0 8px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
a { color: #0b5cad; }
.muted { color: var(--muted); }
header.page, section.drift, section.no-drift { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 20px 24px; margin-bottom: 24px; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 12px; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
.totals { display: flex; gap: 10px; flex-wrap: wrap; margin: 12px 0 16px; }
.stat { border: 1px solid var(--line); border-radius: 8px; padding: 6px 14px; background: #f6f8fa; font-size: 15px; }
.stat b { font-size: 22px; margin-right: 4px; }
.stat.hit b { color: #1a7f37; }
.stat.drifted { border-color: #f0b37e; background: #fff4e5; }
.stat.drifted b { color: #b35900; }
table { border-collapse: collapse; }
table.endpoints { width: 100%; margin: 8px 0 16px; }
table.endpoints caption { text-align: left; font-weight: 600; padding-bottom: 6px; }
table.endpoints th, table.endpoints td { border-bottom: 1px solid var(--line); padding: 6px 10px; text-align: left; vertical-align: top; }
table.endpoints th { background: #f6f8fa; font-weight: 600; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
ul.paths { list-style: none; margin: 0; padding: 0; }
.times { color: var(--muted); }
nav.index ol { margin: 0; padding-left: 22px; }
nav.index li { margin: 3px 0; }
.pill { display: inline-block; border-radius: 999px; padding: 0 9px; font-size: 12px; font-weight: 600; vertical-align: middle; border: 1px solid; }
.pill.unrecorded { color: #8a3b00; background: #fff1e0; border-color: #f0b37e; }
.pill.exhausted { color: #5a32a3; background: #f3eeff; border-color: #c6b3f0; }
h2 a.anchor { color: inherit; text-decoration: none; }
h2 code { font-size: 16px; font-weight: 500; }
p.reason, p.nearest { margin: 4px 0; }
.tape-line { background: #f6f8fa; border: 1px solid var(--line); border-radius: 5px; padding: 1px 6px; }
.no-recording { background: #fff8e1; border: 1px solid #f2d27a; border-left: 5px solid #e0a800; border-radius: 6px; padding: 10px 14px; margin: 10px 0; }
ul.differences { margin: 0 0 14px; padding: 8px 12px 8px 30px; background: #fffaf2; border: 1px solid #f3d3a8; border-radius: 6px; }
ul.differences li { margin: 2px 0; overflow-wrap: anywhere; }
table.compare { width: 100%; table-layout: fixed; margin-top: 12px; }
table.compare thead th { position: sticky; top: 0; z-index: 1; text-align: left; padding: 8px 12px; font-size: 16px; background: var(--paper); border-bottom: 3px solid; }
th.recorded-head { border-color: #e5534b !important; }
th.sent-head { border-color: #2da44e !important; }
table.compare tr.section th { text-align: left; padding: 14px 12px 4px; font-size: 12px; letter-spacing: .06em; text-transform: uppercase; color: var(--muted); border-bottom: 1px solid var(--line); }
table.compare td { vertical-align: top; padding: 5px 12px; overflow-wrap: anywhere; }
table.compare:not(.single) td[data-side="recorded"] { border-right: 1px dashed var(--line); }
td.absent span { display: block; border: 1px dashed var(--line); border-radius: 8px; padding: 6px 10px; color: var(--muted); font-style: italic; font-size: 13px; }
.kv { display: flex; gap: 10px; align-items: baseline; padding: 2px 6px; border-radius: 5px; }
.kv .k { font-weight: 600; min-width: 9em; flex: none; }
.kv .v { white-space: pre-wrap; flex: 1; min-width: 0; }
.request-line .k { min-width: 0; }
.bubble { border: 1px solid; border-radius: 12px; padding: 8px 12px 10px; margin: 2px 0; }
.bubble.user { background: #e9f2ff; border-color: #b4cff5; margin-left: 7%; }
.bubble.assistant { background: #f4f5f7; border-color: #d4d9e0; margin-right: 7%; }
.bubble.system { background: #fff8e6; border-color: #ecd594; }
.bubble.tool { background: #ecf8ef; border-color: #b5dfbf; margin-right: 7%; }
.bubble.other { background: var(--paper); border-style: dashed; border-color: #aab2bd; }
.who { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; font-size: 12px; margin-bottom: 3px; }
.role { font-weight: 700; text-transform: uppercase; letter-spacing: .05em; color: #3b4450; }
.tool-name { font-weight: 700; color: #6a32c9; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; }
.id { color: var(--muted); font-size: 12px; }
.text { white-space: pre-wrap; }
.bubble.tool .text, .card.result .text { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
.caption { font-size: 12px; color: var(--muted); margin-bottom: 2px; display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.error { color: #b42318; font-weight: 700; }
.card { background: var(--paper); border: 1px solid #cfd6de; border-left: 4px solid #8c959f; border-radius: 7px; padding: 6px 10px; margin: 6px 0 2px; }
.card.call { border-left-color: #8250df; }
.card.result { border-left-color: #2da44e; }
.signature { white-space: pre-wrap; }
.signature .function { font-weight: 700; color: #6a32c9; }
.json { white-space: pre-wrap; }
details.tool { padding: 3px 8px; border-radius: 6px; }
details.tool summary { cursor: pointer; display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; list-style-position: inside; }
details.tool summary::before { content: "▸"; color: var(--muted); }
details.tool[open] summary::before { content: "▾"; }
details.tool summary::-webkit-details-marker { display: none; }
details.tool .json { margin: 4px 0 4px 18px; padding: 6px 10px; background: #f6f8fa; border-radius: 6px; }
details.fold { display: inline; }
details.fold summary { display: inline; cursor: pointer; color: #0b5cad; font-family: system-ui, sans-serif; font-size: 12px; background: #eef3fa; border-radius: 4px; padding: 0 6px; }
details.fold[open] summary { display: block; width: max-content; }
details.value summary { cursor: pointer; white-space: normal; }
details.value[open] summary { color: var(--muted); }
details.evidence { margin-top: 16px; font-size: 13px; }
details.evidence summary { cursor: pointer; color: var(--muted); }
details.evidence pre { white-space: pre-wrap; background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
.diff.bubble { box-shadow: 0 0 0 3px var(--diff); border-color: var(--diff); }
.diff.card, .diff.kv, details.tool.diff { background: #fff4e2; box-shadow: inset 0 0 0 2px var(--diff); }
.diff.card { border-left-color: var(--diff); }
.badge { background: var(--diff); color: #fff; border-radius: 999px; padding: 0 8px; font-size: 11px; font-weight: 700; font-family: system-ui, sans-serif; letter-spacing: .03em; white-space: nowrap; align-self: center; }
mark { border-radius: 3px; padding: 0 1px; font-weight: 600; }
mark.ins { background: var(--ins); color: var(--ins-ink); box-shadow: 0 0 0 1px #5cc878; }
mark.del { background: var(--del); color: var(--del-ink); box-shadow: 0 0 0 1px #eb7b73; }
mark.gap { display: inline-block; width: 3px; height: 1.2em; vertical-align: text-bottom; padding: 0; }
mark.ins.gap { background: #2da44e; }
mark.del.gap { background: #e5534b; }
.no-drift h2 { color: #1a7f37; }
footer { color: var(--muted); font-size: 12px; text-align: center; padding: 8px 0 24px; }
`;
