import { indexPath, isRecord, propertyPath } from '../core/internal.js';
import { guessProvider, routeOf, withoutProviderPrefix } from '../providers/internal.js';
import { count } from './count.js';
import type { DriftRequest } from './drift-report.js';
import type { Entry, Leaf, Part, Style, ToolOffer, View } from './view.js';

/**
 * Reads a recorded or sent request into the view of its turns: which wire API a body is in comes
 * from providers/ (`routeOf`), and the OpenAI Chat Completions, OpenAI Responses and Anthropic
 * Messages readers below turn a body into fields, tools offered and conversation entries (they
 * keep every block as sent, images, refusals and unknown items included, which the providers'
 * AskedTurn does not); any other body becomes its top-level fields, its text or its bytes.
 */
export function viewOf(request: DriftRequest): View {
  const view: View = { request, format: 'JSON', fields: [], tools: [], entries: [], body: [], leaves: new Map() };
  const body = request.body;
  if (body === undefined) {
    view.format = 'no body';
  } else if ('text' in body) {
    view.format = 'text';
    view.body.push({ kind: 'text', leaf: { path: '.text', value: body.text, mode: 'text' } });
  } else if ('base64' in body) {
    view.format = 'binary';
    view.body.push({
      kind: 'block',
      path: '.base64',
      label: `${count(base64Bytes(body.base64), 'byte')} of binary data (base64)`,
      leaf: { path: '.base64', value: body.base64, mode: 'brief' },
    });
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

/** The conversation formats the page draws, each by the wire API whose body it is. */
const CONVERSATIONS = {
  'anthropic-messages': { format: 'Anthropic Messages', read: readAnthropic, fits: (json: Record<string, unknown>) => Array.isArray(json.messages) },
  'openai-chat': { format: 'OpenAI Chat Completions', read: readChat, fits: (json: Record<string, unknown>) => Array.isArray(json.messages) },
  'openai-responses': {
    format: 'OpenAI Responses',
    read: readResponses,
    fits: (json: Record<string, unknown>) => typeof json.input === 'string' || Array.isArray(json.input),
  },
} as const;

/**
 * The wire API a body is in: the route (providers/ `routeOf`, the upstream's provider settling
 * shared paths) when it names one of the conversations and the body fits it; otherwise, for a
 * path no provider has (an OpenAI-compatible server's own), the body's shape.
 */
function conversationOf(request: DriftRequest, json: Record<string, unknown>): keyof typeof CONVERSATIONS | undefined {
  const route = routeOf(request.method, withoutProviderPrefix(request.path).path, guessProvider(request.upstream));
  const api = route?.api;
  if (api !== undefined && api in CONVERSATIONS && CONVERSATIONS[api as keyof typeof CONVERSATIONS].fits(json)) return api as keyof typeof CONVERSATIONS;
  // A compatible server's own prefix (`/api/v1/messages`, `/llm/responses`) still names the API by its last segments.
  if (Array.isArray(json.messages))
    return request.upstream.includes('anthropic') || /\/v1\/messages$/.test(request.path) ? 'anthropic-messages' : 'openai-chat';
  if (CONVERSATIONS['openai-responses'].fits(json) && (/\/responses$/.test(request.path) || typeof json.instructions === 'string')) return 'openai-responses';
  return undefined;
}

function readJsonBody(view: View, json: unknown): void {
  if (isRecord(json)) {
    const api = conversationOf(view.request, json);
    if (api !== undefined) {
      view.format = CONVERSATIONS[api].format;
      CONVERSATIONS[api].read(view, json);
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
    if (typeof message.refusal === 'string')
      entry.parts.push({ kind: 'text', label: 'refusal', leaf: { path: propertyPath(path, 'refusal'), value: message.refusal, mode: 'text' } });
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
      view.entries.push(
        typeof item === 'string' ? { path, style: 'user', label: 'user', parts: contentParts(item, path, toolNames) } : unknownEntry(path, item),
      );
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
  if (json.system !== undefined)
    view.entries.push({ path: '.system', style: 'system', label: 'system', parts: contentParts(json.system, '.system', toolNames) });
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
  const text = (name: string, label?: string): Part[] => [
    { kind: 'text', leaf: { path: propertyPath(path, name), value: block[name], mode: 'text' }, ...(label === undefined ? {} : { label }) },
  ];
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
      if (isRecord(block.image_url))
        return [
          {
            kind: 'block',
            path,
            label: 'image',
            leaf: { path: propertyPath(propertyPath(path, 'image_url'), 'url'), value: block.image_url.url, mode: 'brief' },
          },
        ];
      break;
    case 'input_image':
      return [
        {
          kind: 'block',
          path,
          label: 'image',
          leaf: { path: propertyPath(path, block.image_url !== undefined ? 'image_url' : 'file_id'), value: block.image_url ?? block.file_id, mode: 'brief' },
        },
      ];
    case 'image':
    case 'document':
      return [{ kind: 'block', path, label: type, leaf: { path: propertyPath(path, 'source'), value: block.source, mode: 'brief' } }];
  }
  return [{ kind: 'block', path, label: type, leaf: { path, value: block, mode: 'brief' } }];
}

/** `value` when it is a string. */
function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function base64Bytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}
