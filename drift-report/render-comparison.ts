// Recorded and sent, side by side: one table row per field, tool or message, aligned by path.

import type { DriftItem } from './drift-report.js';
import { abbreviateText } from './elided.js';
import { escapeHtml } from '../core/internal.js';
import { highlight, leafHtml, type Side, valueHtml } from './highlight.js';
import type { Entry, Leaf, Part, View } from './view.js';

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

export function renderComparison(item: DriftItem, recorded: View | undefined, sent: View): string {
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
    const title =
      recordedSection !== undefined && recordedSection.title !== sentSection.title
        ? `${sentSection.title} (recorded: ${recordedSection.title})`
        : sentSection.title;
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
    fields.rows.push({
      key: leaf.path,
      html: `<div class="kv${mark.className}" data-path="${escapeHtml(leaf.path)}"${mark.attributes}><span class="k">${escapeHtml(name)}</span><span class="v">${valueHtml(leaf, side)}</span>${mark.badge}</div>`,
    });
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
  http.rows.push({
    key: 'request line',
    html: `<div class="kv request-line"><span class="k">${escapeHtml(request.method)}</span><span class="v">${escapeHtml(request.path)}</span><span class="muted">upstream ${escapeHtml(request.upstream)}</span></div>`,
  });
  const seen = new Set<string>();
  for (const [name, value] of request.query) {
    const path = `query ${name}`;
    const key = seen.has(path) ? `${path} ${value}` : path;
    seen.add(path);
    const mark = highlight(side, path);
    const leaf: Leaf = { path, value, mode: 'text' };
    http.rows.push({
      key,
      html: `<div class="kv${mark.className}" data-path="${escapeHtml(path)}"${mark.attributes}><span class="k">?${escapeHtml(name)}</span><span class="v">${leafHtml(leaf, side)}</span>${mark.badge}</div>`,
    });
  }
  for (const [name, value] of Object.entries(request.headers)) {
    const path = `header ${name.toLowerCase()}`;
    const mark = highlight(side, path);
    http.rows.push({
      key: path,
      html: `<div class="kv${mark.className}" data-path="${escapeHtml(path)}"${mark.attributes}><span class="k">${escapeHtml(name)}:</span><span class="v">${leafHtml({ path, value, mode: 'text' }, side)}</span>${mark.badge}</div>`,
    });
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
