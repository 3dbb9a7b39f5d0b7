import { abbreviate, type Difference, formatDifference, indexPath, maskSecrets, maskValue, propertyPath } from '../core/internal.js';
import type { DriftItem, DriftReport, DriftRequest } from './drift-report.js';

/**
 * The `--html FILE` rendering of a drift report: one self-contained page (inline CSS, no script,
 * no external resource, a Content-Security-Policy that forbids both) showing each drifted
 * request beside its nearest recording. Both sides are drawn as a conversation — system prompt,
 * chat bubbles by role, tool calls as `name(args)` cards, tool results, tools offered, model and
 * parameters — for OpenAI Chat Completions, OpenAI Responses and Anthropic Messages bodies, and
 * as pretty-printed JSON or text for any other body. Every element a difference path points into
 * is outlined and badged on both sides (`class="diff"`, `data-diff`), and the changed span of a
 * text is wrapped in `<mark>` (red on the recorded side, green on the sent side).
 *
 * Everything taken from the report is HTML-escaped. The output depends only on the report: the
 * same report gives the same bytes.
 *
 * @example
 * writeFileSync('drift.html', renderDriftHtml(report));
 */
export function renderDriftHtml(unmasked: DriftReport): string {
  const report = maskValue(unmasked);
  const drifted = report.drifts.length;
  const title = drifted === 0 ? `No drift — ${report.tape}` : `${count(report.totals.drifted, 'drifted request')} — ${report.tape}`;
  return maskSecrets([
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    // Defence in depth: even a rendering bug could neither run a script nor fetch anything.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(`modeltape drift: ${title}`)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    renderHeader(report),
    drifted === 0 ? renderNoDrift(report) : report.drifts.map((item) => renderDrift(item, report)).join('\n'),
    '<footer>Written by <code>modeltape drift --html</code>. Paths use JSON access syntax, as in the terminal report.</footer>',
    '</body>',
    '</html>',
    '',
  ].join('\n'));
}

// ---------------------------------------------------------------------------------------------
// The page header: tape, command, totals, endpoints, and an index of the drifts.

function renderHeader(report: DriftReport): string {
  const { totals } = report;
  const stats = [
    `<span class="stat"><b>${number(totals.requests)}</b> ${totals.requests === 1 ? 'request' : 'requests'}</span>`,
    `<span class="stat hit"><b>${number(totals.hits)}</b> ${totals.hits === 1 ? 'hit' : 'hits'}</span>`,
    `<span class="stat${totals.drifted > 0 ? ' drifted' : ''}"><b>${number(totals.drifted)}</b> drifted</span>`,
  ].join('\n');
  let html = '<header class="page">\n<h1>Drift report</h1>\n<dl class="meta">\n';
  html += `<dt>Tape</dt><dd><code>${escapeHtml(report.tape)}</code></dd>\n`;
  html += `<dt>Command</dt><dd><code>${escapeHtml(report.command.length > 0 ? report.command.map(shellWord).join(' ') : '(none)')}</code></dd>\n`;
  html += `</dl>\n<p class="totals">${stats}</p>\n`;
  if (report.endpoints.length > 0) {
    html += '<table class="endpoints">\n<caption>Drift by endpoint</caption>\n<thead><tr><th scope="col">Endpoint</th><th scope="col">Drifted</th><th scope="col">Paths that differed most</th></tr></thead>\n<tbody>\n';
    for (const endpoint of report.endpoints) {
      const paths = endpoint.topPaths.map(({ path, count: times }) => `<li><code>${escapeHtml(path === '' ? '(the whole body)' : path)}</code> <span class="times">×${number(times)}</span></li>`).join('');
      const unmatched = report.drifts.every((item) => item.endpoint !== endpoint.endpoint || item.nearest === undefined);
      const none = `<span class="muted">${unmatched ? 'no recording to compare with' : 'none'}</span>`;
      html += `<tr><td><code>${escapeHtml(endpoint.endpoint)}</code></td><td class="number">${number(endpoint.drifted)}</td><td>${paths === '' ? none : `<ul class="paths">${paths}</ul>`}</td></tr>\n`;
    }
    html += '</tbody>\n</table>\n';
  }
  if (report.drifts.length < totals.drifted) {
    html += `<p class="muted">Details are kept for the first ${number(report.drifts.length)} drifted requests; the other ${number(totals.drifted - report.drifts.length)} are counted but not shown. Fix these and run again.</p>\n`;
  }
  if (report.drifts.length > 0) {
    html += '<nav class="index" aria-label="Drifts">\n<h2>Drifts</h2>\n<ol>\n';
    for (const item of report.drifts) {
      const first = item.differences[0];
      const summary = item.nearest === undefined ? noRecordingSentence(item) : first === undefined ? 'the same as its nearest recording' : formatDifference(first, 60);
      html += `<li><a href="#${driftId(item)}">${escapeHtml(item.endpoint)}</a> ${reasonPill(item)} <span class="muted">${escapeHtml(summary)}</span></li>\n`;
    }
    html += '</ol>\n</nav>\n';
  }
  return `${html}</header>`;
}

function renderNoDrift(report: DriftReport): string {
  const { requests } = report.totals;
  const sentence = requests === 0 ? 'The run sent no request to the replay.' : `Every request the run sent was on the tape: ${count(requests, 'request')}, ${count(report.totals.hits, 'hit')}.`;
  return `<main>\n<section class="no-drift" aria-labelledby="no-drift-title">\n<h2 id="no-drift-title">No drift</h2>\n<p>${escapeHtml(sentence)}</p>\n</section>\n</main>`;
}

// ---------------------------------------------------------------------------------------------
// One drift: what happened, the differences, then recorded and sent side by side.

function renderDrift(item: DriftItem, report: DriftReport): string {
  const id = driftId(item);
  const sent = viewOf(item.sent);
  const recorded = item.nearest === undefined ? undefined : viewOf(item.nearest.request);
  let html = `<section class="drift" id="${id}" aria-labelledby="${id}-title">\n`;
  html += `<h2 id="${id}-title"><a class="anchor" href="#${id}">Drift ${number(item.index + 1)}</a> <code>${escapeHtml(item.endpoint)}</code> ${reasonPill(item)}</h2>\n`;
  html += `<p class="reason">${escapeHtml(reasonSentence(item))}</p>\n`;
  if (item.nearest !== undefined) {
    const where = item.nearest.line === undefined ? 'a recording made by this run' : `${item.tape ?? report.tape}:${item.nearest.line}`;
    html += `<p class="nearest">Nearest recording: <code class="tape-line">${escapeHtml(where)}</code></p>\n`;
  } else {
    html += `<p class="no-recording" role="note"><b>No recording to compare with.</b> ${escapeHtml(noRecordingSentence(item))} Only the request as sent is shown.</p>\n`;
  }
  if (item.nearest !== undefined) html += renderDifferenceList(item);
  html += renderComparison(item, recorded, sent);
  html += '<details class="evidence"><summary>Miss message and keys</summary>\n';
  html += `<pre>${escapeHtml(item.message)}</pre>\n<dl class="meta"><dt>Key sent</dt><dd><code>${escapeHtml(item.key)}</code></dd>`;
  if (item.nearest !== undefined) html += `<dt>Key recorded</dt><dd><code>${escapeHtml(item.nearest.key)}</code></dd>`;
  html += '</dl>\n</details>\n</section>';
  return html;
}

function renderDifferenceList(item: DriftItem): string {
  if (item.differences.length === 0 && item.reason === 'exhausted') {
    return '<p class="differences-none">The request is the same as this recording, which earlier calls already used up.</p>\n';
  }
  if (item.differences.length === 0) {
    return '<p class="differences-none">Method, path, headers and body are the same as the nearest recording; its stored key differs (see the miss message).</p>\n';
  }
  let html = `<h3>${count(item.totalDifferences, 'difference')}</h3>\n<ul class="differences">\n`;
  for (const difference of item.differences) html += `<li data-path="${escapeHtml(difference.path)}" data-diff="${escapeHtml(difference.change)}"><code>${escapeHtml(formatDifference(difference, 100))}</code></li>\n`;
  const rest = item.totalDifferences - item.differences.length;
  if (rest > 0) html += `<li class="muted">… and ${count(rest, 'more difference')} not kept</li>\n`;
  return `${html}</ul>\n`;
}

function reasonSentence(item: DriftItem): string {
  if (item.reason === 'exhausted') return 'This request was called more often than it was recorded: every recording of it was already used by earlier calls.';
  return 'No recording on the tape has this request’s key.';
}

function noRecordingSentence(item: DriftItem): string {
  if (item.reason === 'exhausted') return 'Every recording of this request was already used.';
  return `The tape holds no recording of ${item.sent.method} ${item.sent.path} (${item.sent.upstream}).`;
}

function driftId(item: DriftItem): string {
  return `drift-${Number(item.index)}`;
}

function reasonPill(item: DriftItem): string {
  const reason = escapeHtml(item.reason);
  return `<span class="pill ${reason}">${reason}</span>`;
}

// ---------------------------------------------------------------------------------------------
// What a request body shows, independent of HTML: parameters, tools, conversation entries, each
// piece of text addressed by the JSON path of the value it comes from.

/** How a value is shown: `text` strings as they are, `value` too but objects pretty when long, `json` always as JSON, `brief` abbreviated. */
type LeafMode = 'text' | 'value' | 'json' | 'brief';

/** A value shown on the page, addressed like a `Difference` (`.messages[1].content`, `header x`). */
interface Leaf {
  path: string;
  value: unknown;
  mode: LeafMode;
}

type Part =
  | { kind: 'text'; leaf: Leaf; label?: string }
  | { kind: 'call'; path: string; name: Leaf; arguments: Leaf; id: Leaf | undefined }
  | { kind: 'result'; path: string; id: Leaf | undefined; tool: string | undefined; error: boolean; parts: Part[] }
  | { kind: 'block'; path: string; label: string; leaf: Leaf };

type Style = 'system' | 'user' | 'assistant' | 'tool' | 'other';

/** One message or input item: a chat bubble. */
interface Entry {
  path: string;
  style: Style;
  label: string;
  /** For a tool result bubble: the tool's name and the call id it answers. */
  tool?: string;
  id?: Leaf;
  parts: Part[];
}

interface ToolOffer {
  path: string;
  name: string;
  description: string | undefined;
  definition: Leaf;
}

interface View {
  request: DriftRequest;
  /** e.g. `OpenAI Chat Completions`, `JSON`, `text`. */
  format: string;
  /** Top-level fields that are not the conversation or the tools; for a body of unknown shape, all of them. */
  fields: Array<{ name: string; leaf: Leaf }>;
  tools: ToolOffer[];
  entries: Entry[];
  /** For text, binary, missing or unknown bodies: what stands in place of a conversation. */
  body: Part[];
  /** Every leaf shown, by path, so the other side can find its counterpart. */
  leaves: Map<string, Leaf>;
}

function viewOf(request: DriftRequest): View {
  const view: View = { request, format: 'JSON', fields: [], tools: [], entries: [], body: [], leaves: new Map() };
  const body = request.body;
  if (body === undefined) {
    view.format = 'no body';
  } else if ('text' in body) {
    view.format = 'text';
    view.body.push({ kind: 'text', leaf: { path: '.text', value: body.text, mode: 'text' } });
  } else if ('base64' in body) {
    view.format = 'binary';
    view.body.push({ kind: 'block', path: '.base64', label: `${count(base64Bytes(body.base64), 'byte')} of binary data (base64)`, leaf: { path: '.base64', value: body.base64, mode: 'brief' } });
  } else {
    readJsonBody(view, body.json);
  }
  for (const [name, value] of request.query) remember(view.leaves, { path: `query ${name}`, value, mode: 'text' });
  for (const [name, value] of Object.entries(request.headers)) remember(view.leaves, { path: `header ${name.toLowerCase()}`, value, mode: 'text' });
  for (const field of view.fields) remember(view.leaves, field.leaf);
  for (const tool of view.tools) remember(view.leaves, tool.definition);
  for (const entry of view.entries) {
    if (entry.id) remember(view.leaves, entry.id);
    rememberParts(view.leaves, entry.parts);
  }
  rememberParts(view.leaves, view.body);
  return view;
}

function remember(leaves: Map<string, Leaf>, leaf: Leaf): void {
  if (!leaves.has(leaf.path)) leaves.set(leaf.path, leaf);
}

function rememberParts(leaves: Map<string, Leaf>, parts: Part[]): void {
  for (const part of parts) {
    if (part.kind === 'text' || part.kind === 'block') remember(leaves, part.leaf);
    else if (part.kind === 'call') {
      remember(leaves, part.name);
      remember(leaves, part.arguments);
      if (part.id) remember(leaves, part.id);
    } else {
      if (part.id) remember(leaves, part.id);
      rememberParts(leaves, part.parts);
    }
  }
}

function readJsonBody(view: View, json: unknown): void {
  const path = view.request.path;
  if (isRecord(json)) {
    if (Array.isArray(json.messages) && (view.request.upstream.includes('anthropic') || /\/v1\/messages$/.test(path))) {
      view.format = 'Anthropic Messages';
      readAnthropic(view, json);
      return;
    }
    if (Array.isArray(json.messages)) {
      view.format = 'OpenAI Chat Completions';
      readChat(view, json);
      return;
    }
    if ((typeof json.input === 'string' || Array.isArray(json.input)) && (/\/responses$/.test(path) || typeof json.instructions === 'string')) {
      view.format = 'OpenAI Responses';
      readResponses(view, json);
      return;
    }
    view.fields = Object.entries(json).map(([name, value]) => ({ name, leaf: { path: propertyPath('', name), value, mode: 'json' } }));
    return;
  }
  view.body.push({ kind: 'block', path: '', label: 'body', leaf: { path: '', value: json, mode: 'json' } });
}

/** Top-level fields other than `consumed`, the model first. */
function fieldsOf(json: Record<string, unknown>, consumed: string[]): View['fields'] {
  const names = Object.keys(json).filter((name) => !consumed.includes(name));
  names.sort((left, right) => Number(right === 'model') - Number(left === 'model'));
  return names.map((name) => ({ name, leaf: { path: propertyPath('', name), value: json[name], mode: 'value' } }));
}

function toolsOf(tools: unknown): ToolOffer[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((tool, index) => {
    const path = indexPath('.tools', index);
    const inner = isRecord(tool) && isRecord(tool.function) ? tool.function : tool;
    const name = isRecord(inner) ? (stringOr(inner.name) ?? stringOr(isRecord(tool) ? tool.type : undefined) ?? `tool ${index}`) : `tool ${index}`;
    const description = isRecord(inner) ? stringOr(inner.description) : undefined;
    return { path, name, description, definition: { path, value: tool, mode: 'json' } };
  });
}

function readChat(view: View, json: Record<string, unknown>): void {
  view.fields = fieldsOf(json, ['messages', 'tools']);
  view.tools = toolsOf(json.tools);
  const toolNames = new Map<string, string>();
  (json.messages as unknown[]).forEach((message, index) => {
    const path = indexPath('.messages', index);
    if (!isRecord(message)) {
      view.entries.push(unknownEntry(path, message));
      return;
    }
    const role = stringOr(message.role) ?? 'message';
    const entry: Entry = { path, style: styleOf(role), label: role, parts: contentParts(message.content, propertyPath(path, 'content'), toolNames) };
    if (typeof message.refusal === 'string') entry.parts.push({ kind: 'text', label: 'refusal', leaf: { path: propertyPath(path, 'refusal'), value: message.refusal, mode: 'text' } });
    if (Array.isArray(message.tool_calls)) {
      message.tool_calls.forEach((call, callIndex) => {
        const callPath = indexPath(propertyPath(path, 'tool_calls'), callIndex);
        const called = isRecord(call) && isRecord(call.function) ? call.function : undefined;
        if (!isRecord(call) || called === undefined) {
          entry.parts.push({ kind: 'block', path: callPath, label: 'tool call', leaf: { path: callPath, value: call, mode: 'json' } });
          return;
        }
        const functionPath = propertyPath(callPath, 'function');
        const id = stringOr(call.id);
        if (id !== undefined && typeof called.name === 'string') toolNames.set(id, called.name);
        entry.parts.push({
          kind: 'call',
          path: callPath,
          name: { path: propertyPath(functionPath, 'name'), value: called.name, mode: 'text' },
          arguments: { path: propertyPath(functionPath, 'arguments'), value: called.arguments, mode: 'text' },
          id: call.id === undefined ? undefined : { path: propertyPath(callPath, 'id'), value: call.id, mode: 'text' },
        });
      });
    }
    if (role === 'tool' || role === 'function') {
      entry.label = 'tool result';
      const callId = stringOr(message.tool_call_id);
      const tool = stringOr(message.name) ?? (callId === undefined ? undefined : toolNames.get(callId));
      if (tool !== undefined) entry.tool = tool;
      if (message.tool_call_id !== undefined) entry.id = { path: propertyPath(path, 'tool_call_id'), value: message.tool_call_id, mode: 'text' };
    }
    view.entries.push(entry);
  });
}

function readResponses(view: View, json: Record<string, unknown>): void {
  view.fields = fieldsOf(json, ['instructions', 'input', 'tools']);
  view.tools = toolsOf(json.tools);
  if (json.instructions !== undefined && json.instructions !== null) {
    view.entries.push({ path: '.instructions', style: 'system', label: 'instructions', parts: contentParts(json.instructions, '.instructions', new Map()) });
  }
  if (typeof json.input === 'string') {
    view.entries.push({ path: '.input', style: 'user', label: 'user', parts: contentParts(json.input, '.input', new Map()) });
    return;
  }
  const toolNames = new Map<string, string>();
  (json.input as unknown[]).forEach((item, index) => {
    const path = indexPath('.input', index);
    if (!isRecord(item)) {
      view.entries.push(typeof item === 'string' ? { path, style: 'user', label: 'user', parts: contentParts(item, path, toolNames) } : unknownEntry(path, item));
      return;
    }
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const callId = stringOr(item.call_id);
      if (callId !== undefined && typeof item.name === 'string') toolNames.set(callId, item.name);
      const argumentsName = item.type === 'custom_tool_call' ? 'input' : 'arguments';
      view.entries.push({
        path,
        style: 'assistant',
        label: 'assistant · function call',
        parts: [
          {
            kind: 'call',
            path,
            name: { path: propertyPath(path, 'name'), value: item.name, mode: 'text' },
            arguments: { path: propertyPath(path, argumentsName), value: item[argumentsName], mode: 'text' },
            id: item.call_id === undefined ? undefined : { path: propertyPath(path, 'call_id'), value: item.call_id, mode: 'text' },
          },
        ],
      });
      return;
    }
    if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      const callId = stringOr(item.call_id);
      const entry: Entry = { path, style: 'tool', label: 'tool result', parts: contentParts(item.output, propertyPath(path, 'output'), toolNames) };
      const tool = callId === undefined ? undefined : toolNames.get(callId);
      if (tool !== undefined) entry.tool = tool;
      if (item.call_id !== undefined) entry.id = { path: propertyPath(path, 'call_id'), value: item.call_id, mode: 'text' };
      view.entries.push(entry);
      return;
    }
    if (typeof item.role === 'string' && (item.type === undefined || item.type === 'message')) {
      view.entries.push({ path, style: styleOf(item.role), label: item.role, parts: contentParts(item.content, propertyPath(path, 'content'), toolNames) });
      return;
    }
    view.entries.push(unknownEntry(path, item));
  });
}

function readAnthropic(view: View, json: Record<string, unknown>): void {
  view.fields = fieldsOf(json, ['system', 'messages', 'tools']);
  view.tools = toolsOf(json.tools);
  const toolNames = new Map<string, string>();
  if (json.system !== undefined) view.entries.push({ path: '.system', style: 'system', label: 'system', parts: contentParts(json.system, '.system', toolNames) });
  (json.messages as unknown[]).forEach((message, index) => {
    const path = indexPath('.messages', index);
    if (!isRecord(message)) {
      view.entries.push(unknownEntry(path, message));
      return;
    }
    const role = stringOr(message.role) ?? 'message';
    const parts = contentParts(message.content, propertyPath(path, 'content'), toolNames);
    // A user turn that only carries tool results reads as the tool speaking.
    const onlyResults = parts.length > 0 && parts.every((part) => part.kind === 'result');
    view.entries.push({ path, style: onlyResults ? 'tool' : styleOf(role), label: onlyResults ? `${role} · tool result` : role, parts });
  });
}

function unknownEntry(path: string, value: unknown): Entry {
  const label = isRecord(value) && typeof value.type === 'string' ? value.type : 'item';
  return { path, style: 'other', label, parts: [{ kind: 'block', path, label: 'as sent', leaf: { path, value, mode: 'json' } }] };
}

function styleOf(role: string): Style {
  if (role === 'system' || role === 'developer') return 'system';
  if (role === 'user') return 'user';
  if (role === 'assistant' || role === 'model') return 'assistant';
  if (role === 'tool' || role === 'function') return 'tool';
  return 'other';
}

/** A message's `content`: a string, or blocks/parts of any of the three formats. */
function contentParts(content: unknown, path: string, toolNames: Map<string, string>): Part[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ kind: 'text', leaf: { path, value: content, mode: 'text' } }];
  if (!Array.isArray(content)) return [{ kind: 'block', path, label: 'content', leaf: { path, value: content, mode: 'json' } }];
  return content.flatMap((block, index) => blockParts(block, indexPath(path, index), toolNames));
}

function blockParts(block: unknown, path: string, toolNames: Map<string, string>): Part[] {
  if (typeof block === 'string') return [{ kind: 'text', leaf: { path, value: block, mode: 'text' } }];
  if (!isRecord(block)) return [{ kind: 'block', path, label: 'part', leaf: { path, value: block, mode: 'json' } }];
  const type = stringOr(block.type) ?? 'part';
  const text = (name: string, label?: string): Part[] => [{ kind: 'text', leaf: { path: propertyPath(path, name), value: block[name], mode: 'text' }, ...(label === undefined ? {} : { label }) }];
  switch (type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      if (typeof block.text === 'string') return text('text');
      break;
    case 'refusal':
      if (typeof block.refusal === 'string') return text('refusal', 'refusal');
      break;
    case 'thinking':
      if (typeof block.thinking === 'string') return text('thinking', 'thinking');
      break;
    case 'tool_use':
    case 'server_tool_use': {
      if (typeof block.id === 'string' && typeof block.name === 'string') toolNames.set(block.id, block.name);
      return [
        {
          kind: 'call',
          path,
          name: { path: propertyPath(path, 'name'), value: block.name, mode: 'text' },
          arguments: { path: propertyPath(path, 'input'), value: block.input ?? {}, mode: 'text' },
          id: block.id === undefined ? undefined : { path: propertyPath(path, 'id'), value: block.id, mode: 'text' },
        },
      ];
    }
    case 'tool_result': {
      const callId = stringOr(block.tool_use_id);
      return [
        {
          kind: 'result',
          path,
          id: block.tool_use_id === undefined ? undefined : { path: propertyPath(path, 'tool_use_id'), value: block.tool_use_id, mode: 'text' },
          tool: callId === undefined ? undefined : toolNames.get(callId),
          error: block.is_error === true,
          parts: contentParts(block.content, propertyPath(path, 'content'), toolNames),
        },
      ];
    }
    case 'image_url':
      if (isRecord(block.image_url)) return [{ kind: 'block', path, label: 'image', leaf: { path: propertyPath(propertyPath(path, 'image_url'), 'url'), value: block.image_url.url, mode: 'brief' } }];
      break;
    case 'input_image':
      return [{ kind: 'block', path, label: 'image', leaf: { path: propertyPath(path, block.image_url !== undefined ? 'image_url' : 'file_id'), value: block.image_url ?? block.file_id, mode: 'brief' } }];
    case 'image':
    case 'document':
      return [{ kind: 'block', path, label: type, leaf: { path: propertyPath(path, 'source'), value: block.source, mode: 'brief' } }];
  }
  return [{ kind: 'block', path, label: type, leaf: { path, value: block, mode: 'brief' } }];
}

// ---------------------------------------------------------------------------------------------
// Recorded and sent, side by side: one table row per field, tool or message, aligned by path.

/** One side of the comparison while it is drawn. */
interface Side {
  name: 'recorded' | 'sent';
  differences: readonly Difference[];
  /** The other side's leaves, to find what changed inside a text; undefined when there is no other side. */
  other: Map<string, Leaf> | undefined;
}

interface Row {
  key: string;
  html: string;
}

interface SectionRows {
  id: string;
  title: string;
  /** What an empty cell says, e.g. `not set`. */
  absent: string;
  rows: Row[];
}

function renderComparison(item: DriftItem, recorded: View | undefined, sent: View): string {
  const sentSide: Side = { name: 'sent', differences: item.differences, other: recorded?.leaves };
  const sentSections = sectionsOf(sent, sentSide);
  let html = `<table class="compare${recorded === undefined ? ' single' : ''}">\n`;
  if (recorded === undefined) {
    html += '<thead><tr><th scope="col" class="sent-head">Sent <span class="muted">by this run</span></th></tr></thead>\n<tbody>\n';
    for (const section of sentSections) {
      if (section.rows.length === 0) continue;
      html += `<tr class="section"><th scope="rowgroup">${escapeHtml(section.title)}</th></tr>\n`;
      for (const row of section.rows) html += `<tr><td data-side="sent">${row.html}</td></tr>\n`;
    }
    return `${html}</tbody>\n</table>\n`;
  }
  const recordedSide: Side = { name: 'recorded', differences: item.differences, other: sent.leaves };
  const recordedSections = sectionsOf(recorded, recordedSide);
  const where = item.nearest?.line === undefined ? 'recorded by this run' : `line ${item.nearest.line}`;
  html += `<thead><tr><th scope="col" class="recorded-head">Recorded <span class="muted">${escapeHtml(where)}</span></th><th scope="col" class="sent-head">Sent <span class="muted">by this run</span></th></tr></thead>\n<tbody>\n`;
  for (const sentSection of sentSections) {
    const recordedSection = recordedSections.find((section) => section.id === sentSection.id);
    const left = new Map((recordedSection?.rows ?? []).map((row) => [row.key, row.html]));
    const right = new Map(sentSection.rows.map((row) => [row.key, row.html]));
    const keys = mergeKeys([...left.keys()], [...right.keys()]);
    if (keys.length === 0) continue;
    const title = recordedSection !== undefined && recordedSection.title !== sentSection.title ? `${sentSection.title} (recorded: ${recordedSection.title})` : sentSection.title;
    html += `<tr class="section"><th scope="rowgroup" colspan="2">${escapeHtml(title)}</th></tr>\n`;
    for (const key of keys) {
      html += `<tr>${cell('recorded', left.get(key), sentSection.absent)}${cell('sent', right.get(key), sentSection.absent)}</tr>\n`;
    }
  }
  return `${html}</tbody>\n</table>\n`;
}

function cell(side: Side['name'], html: string | undefined, absent: string): string {
  return html === undefined ? `<td data-side="${side}" class="absent"><span>${escapeHtml(absent)}</span></td>` : `<td data-side="${side}">${html}</td>`;
}

/** `left`'s order, with the keys only `right` has inserted after the key they follow there. */
function mergeKeys(left: string[], right: string[]): string[] {
  const merged = [...left];
  let cursor = -1;
  for (const key of right) {
    const at = merged.indexOf(key);
    if (at >= 0) cursor = at;
    else merged.splice(++cursor, 0, key);
  }
  return merged;
}

function sectionsOf(view: View, side: Side): SectionRows[] {
  const known = view.entries.length > 0 || view.tools.length > 0 || view.format !== 'JSON';
  const fields: SectionRows = { id: 'fields', title: known ? 'Model and parameters' : 'Body (JSON)', absent: known ? 'not set' : 'not present', rows: [] };
  for (const { name, leaf } of view.fields) {
    const mark = highlight(side, leaf.path);
    fields.rows.push({ key: leaf.path, html: `<div class="kv${mark.className}" data-path="${escapeHtml(leaf.path)}"${mark.attributes}><span class="k">${escapeHtml(name)}</span><span class="v">${valueHtml(leaf, side)}</span>${mark.badge}</div>` });
  }
  const tools: SectionRows = { id: 'tools', title: 'Tools offered', absent: 'not offered', rows: [] };
  for (const tool of view.tools) {
    const mark = highlight(side, tool.path);
    const description = tool.description === undefined ? '' : ` <span class="muted">${escapeHtml(abbreviateText(tool.description, 90))}</span>`;
    tools.rows.push({
      key: tool.path,
      html: `<details class="tool${mark.className}" data-path="${escapeHtml(tool.path)}"${mark.attributes}${mark.className === '' ? '' : ' open'}><summary><span class="tool-name">${escapeHtml(tool.name)}</span>${description}${mark.badge}</summary><div class="json">${leafHtml(tool.definition, side)}</div></details>`,
    });
  }
  const conversation: SectionRows = { id: 'conversation', title: `Conversation · ${view.format}`, absent: 'no message here', rows: [] };
  for (const entry of view.entries) conversation.rows.push({ key: entry.path, html: entryHtml(entry, side) });
  const body: SectionRows = { id: 'body', title: `Body · ${view.format}`, absent: 'no body', rows: [] };
  if (view.format === 'no body') body.rows.push({ key: 'none', html: '<div class="muted">No body.</div>' });
  for (const part of view.body) body.rows.push({ key: partKey(part), html: partHtml(part, side) });
  const http: SectionRows = { id: 'http', title: 'HTTP request', absent: 'not sent', rows: [] };
  const { request } = view;
  http.rows.push({ key: 'request line', html: `<div class="kv request-line"><span class="k">${escapeHtml(request.method)}</span><span class="v">${escapeHtml(request.path)}</span><span class="muted">upstream ${escapeHtml(request.upstream)}</span></div>` });
  const seen = new Set<string>();
  for (const [name, value] of request.query) {
    const path = `query ${name}`;
    const key = seen.has(path) ? `${path} ${value}` : path;
    seen.add(path);
    const mark = highlight(side, path);
    const leaf: Leaf = { path, value, mode: 'text' };
    http.rows.push({ key, html: `<div class="kv${mark.className}" data-path="${escapeHtml(path)}"${mark.attributes}><span class="k">?${escapeHtml(name)}</span><span class="v">${leafHtml(leaf, side)}</span>${mark.badge}</div>` });
  }
  for (const [name, value] of Object.entries(request.headers)) {
    const path = `header ${name.toLowerCase()}`;
    const mark = highlight(side, path);
    http.rows.push({ key: path, html: `<div class="kv${mark.className}" data-path="${escapeHtml(path)}"${mark.attributes}><span class="k">${escapeHtml(name)}:</span><span class="v">${leafHtml({ path, value, mode: 'text' }, side)}</span>${mark.badge}</div>` });
  }
  return [fields, tools, conversation, body, http];
}

function partKey(part: Part): string {
  return part.kind === 'text' ? part.leaf.path : part.path;
}

function entryHtml(entry: Entry, side: Side): string {
  const mark = highlight(side, entry.path);
  let who = `<span class="role">${escapeHtml(entry.label)}</span>`;
  if (entry.tool !== undefined) who += ` <span class="tool-name">${escapeHtml(entry.tool)}</span>`;
  if (entry.id !== undefined) who += ` <span class="id">${leafHtml(entry.id, side)}</span>`;
  const parts = entry.parts.length === 0 ? '<div class="muted">(no content)</div>' : entry.parts.map((part) => partHtml(part, side)).join('');
  return `<div class="bubble ${entry.style}${mark.className}" data-path="${escapeHtml(entry.path)}"${mark.attributes}><div class="who">${who}${mark.badge}</div>${parts}</div>`;
}

function partHtml(part: Part, side: Side): string {
  switch (part.kind) {
    case 'text':
      return `<div class="text">${part.label === undefined ? '' : `<div class="caption">${escapeHtml(part.label)}</div>`}${leafHtml(part.leaf, side)}</div>`;
    case 'call': {
      const mark = highlight(side, part.path);
      const id = part.id === undefined ? '' : `<div class="id">${leafHtml(part.id, side)}</div>`;
      return `<div class="card call${mark.className}" data-path="${escapeHtml(part.path)}"${mark.attributes}><code class="signature"><span class="function">${leafHtml(part.name, side)}</span>(<span class="arguments">${leafHtml(part.arguments, side)}</span>)</code>${mark.badge}${id}</div>`;
    }
    case 'result': {
      const mark = highlight(side, part.path);
      let caption = 'result';
      if (part.tool !== undefined) caption += ` of <span class="tool-name">${escapeHtml(part.tool)}</span>`;
      if (part.id !== undefined) caption += ` <span class="id">${leafHtml(part.id, side)}</span>`;
      if (part.error) caption += ' <span class="error">error</span>';
      const inner = part.parts.length === 0 ? '<div class="muted">(no content)</div>' : part.parts.map((inside) => partHtml(inside, side)).join('');
      return `<div class="card result${mark.className}" data-path="${escapeHtml(part.path)}"${mark.attributes}><div class="caption">${caption}${mark.badge}</div>${inner}</div>`;
    }
    case 'block': {
      const mark = highlight(side, part.path);
      return `<div class="card block${mark.className}" data-path="${escapeHtml(part.path)}"${mark.attributes}><div class="caption">${escapeHtml(part.label)}${mark.badge}</div><div class="json">${leafHtml(part.leaf, side)}</div></div>`;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Highlighting: which elements a difference touches, and which span of a text changed.

type Relation = 'same' | 'inside' | 'around';

/** How a difference path stands to an element's path: at it, inside it, or around it (an ancestor). */
function relation(differencePath: string, elementPath: string): Relation | undefined {
  const named = /^(header|query) /;
  if (named.test(differencePath) || named.test(elementPath)) {
    const fold = (path: string): string => (path.startsWith('header ') ? path.toLowerCase() : path);
    return fold(differencePath) === fold(elementPath) ? 'same' : undefined;
  }
  if (differencePath === elementPath) return 'same';
  if (isBelow(differencePath, elementPath)) return 'inside';
  if (isBelow(elementPath, differencePath)) return 'around';
  return undefined;
}

function isBelow(path: string, ancestor: string): boolean {
  const next = path[ancestor.length];
  return path.length > ancestor.length && path.startsWith(ancestor) && (next === '.' || next === '[');
}

interface Highlight {
  /** ` diff` or empty. */
  className: string;
  attributes: string;
  badge: string;
}

const NO_HIGHLIGHT: Highlight = { className: '', attributes: '', badge: '' };

function highlight(side: Side, path: string): Highlight {
  const touching = side.differences.filter((difference) => relation(difference.path, path) !== undefined);
  if (touching.length === 0) return NO_HIGHLIGHT;
  // Added or removed as a whole (itself or an ancestor): the element exists on one side only.
  const whole = touching.find((difference) => relation(difference.path, path) !== 'inside' && (difference.change === 'added' || difference.change === 'removed'));
  const change = whole?.change ?? 'changed';
  const badge = change === 'added' ? 'not recorded' : change === 'removed' ? 'not sent' : 'changed';
  const paths = [...new Set(touching.map((difference) => (difference.path === '' ? '(the whole body)' : difference.path)))];
  const title = `differs at ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}`;
  return { className: ' diff', attributes: ` data-diff="${escapeHtml(change)}" title="${escapeHtml(title)}"`, badge: `<span class="badge">${badge}</span>` };
}

/** A leaf's text, with the span that differs from the other side marked when a difference points at or into it. */
function leafHtml(leaf: Leaf, side: Side): string {
  const counterpart = side.other?.get(leaf.path);
  const pretty = wantsPretty(leaf) || (counterpart !== undefined && wantsPretty(counterpart));
  const text = display(leaf, pretty);
  const touched = pointsInto(side, leaf.path);
  const markClass = side.name === 'sent' ? 'ins' : 'del';
  if (!touched) return elided(text, undefined, markClass);
  if (counterpart === undefined) return elided(text, [0, text.length], markClass);
  const otherText = display(counterpart, pretty);
  // The difference is in what the key was computed from (after normalizers); the text may not show it.
  if (otherText === text) return elided(text, undefined, markClass);
  return elided(text, changedSpan(text, otherText), markClass);
}

/** Whether a difference points at `path` or into it. */
function pointsInto(side: Side, path: string): boolean {
  return side.differences.some((difference) => {
    const at = relation(difference.path, path);
    return at === 'same' || at === 'inside';
  });
}

/**
 * A field's value: a long JSON value nobody changed folds into its one-line abbreviation; a
 * changed one stays open with the change marked.
 */
function valueHtml(leaf: Leaf, side: Side): string {
  const counterpart = side.other?.get(leaf.path);
  const pretty = wantsPretty(leaf) || (counterpart !== undefined && wantsPretty(counterpart));
  if (!pretty || pointsInto(side, leaf.path) || display(leaf, true).split('\n').length <= 8) return leafHtml(leaf, side);
  return `<details class="value"><summary>${escapeHtml(abbreviate(leaf.value, 70))}</summary>${leafHtml(leaf, side)}</details>`;
}

function display(leaf: Leaf, pretty: boolean): string {
  const { value, mode } = leaf;
  if (value === undefined) return '';
  if (mode === 'brief') return typeof value === 'string' ? abbreviateText(value, value.startsWith('data:') ? 64 : 160) : abbreviate(value, 160);
  if (typeof value === 'string' && mode !== 'json') return value;
  return pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

function wantsPretty(leaf: Leaf): boolean {
  return (leaf.mode === 'value' || leaf.mode === 'json') && typeof leaf.value === 'object' && leaf.value !== null && JSON.stringify(leaf.value).length > 60;
}

/**
 * The span of `text` that differs from `other`: what lies between their common prefix and
 * common suffix, widened to whole words so `Paris`→`Lyon` marks the words, not `ris`→`yon`.
 */
function changedSpan(text: string, other: string): [number, number] {
  const shorter = Math.min(text.length, other.length);
  let prefix = 0;
  while (prefix < shorter && text[prefix] === other[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && text[text.length - 1 - suffix] === other[other.length - 1 - suffix]) suffix++;
  // Never split a surrogate pair.
  if (prefix > 0 && isHighSurrogate(text.charCodeAt(prefix - 1))) prefix--;
  if (suffix > 0 && isHighSurrogate(text.charCodeAt(text.length - suffix - 1))) suffix--;
  const word = (character: string | undefined): boolean => character !== undefined && /[\p{L}\p{N}_]/u.test(character);
  const textChanged = (): boolean => text.length - suffix > prefix;
  const otherChanged = (): boolean => other.length - suffix > prefix;
  while (prefix > 0 && word(text[prefix - 1]) && ((textChanged() && word(text[prefix])) || (otherChanged() && word(other[prefix])))) prefix--;
  while (suffix > 0 && word(text[text.length - suffix]) && ((textChanged() && word(text[text.length - suffix - 1])) || (otherChanged() && word(other[other.length - suffix - 1])))) suffix--;
  return [prefix, text.length - suffix];
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

const LONG_TEXT = 1500;
const CONTEXT = 300;

/** Escaped text with `span` marked; long stretches far from the mark fold into `<details>`. */
function elided(text: string, span: [number, number] | undefined, markClass: 'ins' | 'del'): string {
  if (span === undefined) {
    if (text.length <= LONG_TEXT) return escapeHtml(text);
    const cut = wordCut(text, CONTEXT * 2, -1);
    return escapeHtml(text.slice(0, cut)) + folded(text.slice(cut), 'more');
  }
  const [start, end] = span;
  let html = '';
  const before = text.slice(0, start);
  if (before.length > CONTEXT + 200) {
    const cut = wordCut(before, before.length - CONTEXT, 1);
    html += folded(before.slice(0, cut), 'earlier') + escapeHtml(before.slice(cut));
  } else {
    html += escapeHtml(before);
  }
  const changed = text.slice(start, end);
  if (changed.length === 0) {
    html += `<mark class="${markClass} gap" title="${markClass === 'ins' ? 'the recording has text here' : 'the request sent has text here'}"></mark>`;
  } else if (changed.length > LONG_TEXT) {
    const cut = wordCut(changed, CONTEXT * 2, -1);
    html += `<mark class="${markClass}">${escapeHtml(changed.slice(0, cut))}</mark>${folded(changed.slice(cut), 'more', markClass)}`;
  } else {
    html += `<mark class="${markClass}">${escapeHtml(changed)}</mark>`;
  }
  const after = text.slice(end);
  if (after.length > CONTEXT + 200) {
    const cut = wordCut(after, CONTEXT, -1);
    html += escapeHtml(after.slice(0, cut)) + folded(after.slice(cut), 'more');
  } else {
    html += escapeHtml(after);
  }
  return html;
}

function folded(text: string, which: 'earlier' | 'more', markClass?: 'ins' | 'del'): string {
  const inner = markClass === undefined ? escapeHtml(text) : `<mark class="${markClass}">${escapeHtml(text)}</mark>`;
  return `<details class="fold"><summary>${which === 'earlier' ? '…' : ''}${count(text.length, which === 'earlier' ? 'earlier character' : 'more character')}${which === 'more' ? '…' : ''}</summary>${inner}</details>`;
}

/** A place near `at` to fold a text: after a space when one is near, never inside a surrogate pair. */
function wordCut(text: string, at: number, direction: 1 | -1): number {
  for (let step = 0; step <= 40; step++) {
    const position = at + step * direction;
    if (position <= 0 || position >= text.length) break;
    if (/\s/.test(text[position - 1]!)) return position;
  }
  return at > 0 && isHighSurrogate(text.charCodeAt(at - 1)) ? at - 1 : at;
}

// ---------------------------------------------------------------------------------------------
// Small helpers.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in an element and in a double-quoted attribute. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A number as digits, whatever the report holds in its place. */
function number(value: number): string {
  return Number(value).toLocaleString('en-US');
}

function count(value: number, noun: string): string {
  return `${number(value)} ${noun}${value === 1 ? '' : 's'}`;
}

function abbreviateText(text: string, width: number): string {
  if (text.length <= width) return text;
  const half = Math.floor((width - 1) / 2);
  return `${text.slice(0, half)}…(${text.length.toLocaleString('en-US')} chars)…${text.slice(text.length - half)}`;
}

function base64Bytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

/** A command word as a POSIX shell would need it quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const STYLE = `
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
