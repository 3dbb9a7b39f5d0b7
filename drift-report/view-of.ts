import { indexPath, isRecord, propertyPath } from '../core/internal.js';
import {
  base64Bytes,
  guessProvider,
  isJsonRpcMessage,
  readTurnAs,
  routeOf,
  withoutProviderPrefix,
  type AskedItem,
  type AskedPart,
  type AskedTurn,
  type TurnApi,
} from '../providers/internal.js';
import { count } from './count.js';
import type { DriftRequest } from './drift-report.js';
import type { Entry, Leaf, Part, Style, ToolOffer, View } from './view.js';

/**
 * Reads a recorded or sent request into the view of its turns. A model turn's body (OpenAI Chat
 * Completions and Responses, Anthropic Messages, Gemini generateContent, Ollama chat and
 * generate, Bedrock Converse and InvokeModel's Claude and Nova bodies) is read by providers/ (`readTurnAs`): its `items` — every message as sent, with
 * text, images, thinking, refusals, tool calls and results, unknown blocks, each at its JSON
 * path — become the conversation entries; this file only decides how each is drawn. Any other
 * body becomes its top-level fields, its text or its bytes.
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

/**
 * The wire APIs whose one request body holds a conversation. A Realtime session's conversation is
 * spread over its events (each a body of its own), so the page shows each event as its JSON.
 */
type PagedApi = Exclude<TurnApi, 'openai-realtime'>;

/** The conversations the page draws, by the wire API whose body it is: its name, the top-level fields it reads, and whether a body fits it. */
const CONVERSATIONS: Record<PagedApi, { format: string; consumed: string[]; fits: (json: Record<string, unknown>) => boolean }> = {
  'anthropic-messages': { format: 'Anthropic Messages', consumed: ['system', 'messages', 'tools'], fits: (json) => Array.isArray(json.messages) },
  'openai-chat': { format: 'OpenAI Chat Completions', consumed: ['messages', 'tools'], fits: (json) => Array.isArray(json.messages) },
  'openai-responses': {
    format: 'OpenAI Responses',
    consumed: ['instructions', 'input', 'tools'],
    fits: (json) => typeof json.input === 'string' || Array.isArray(json.input),
  },
  'gemini-generate': {
    format: 'Gemini generateContent',
    consumed: ['systemInstruction', 'system_instruction', 'contents', 'tools'],
    fits: (json) => Array.isArray(json.contents),
  },
  'ollama-chat': { format: 'Ollama chat', consumed: ['messages', 'tools'], fits: (json) => Array.isArray(json.messages) },
  'ollama-generate': { format: 'Ollama generate', consumed: ['system', 'prompt', 'images'], fits: (json) => typeof json.prompt === 'string' },
  'bedrock-converse': { format: 'Bedrock Converse', consumed: ['system', 'messages', 'toolConfig'], fits: (json) => Array.isArray(json.messages) },
  // InvokeModel carries the model's own body: Anthropic Messages (`tools`) or Amazon Nova (Converse's `toolConfig`).
  'bedrock-invoke': { format: 'Bedrock InvokeModel', consumed: ['system', 'messages', 'tools', 'toolConfig'], fits: (json) => Array.isArray(json.messages) },
};

/**
 * The turn a body shows, read by providers/: by its route (the upstream's provider settling
 * shared paths) when the body fits that API; otherwise, for a path no provider has (an
 * OpenAI-compatible server's own), by the body's shape.
 */
function turnOf(request: DriftRequest, json: Record<string, unknown>): AskedTurn | undefined {
  const route = routeOf(request.method, withoutProviderPrefix(request.path).path, guessProvider(request.upstream));
  const api = route?.api as PagedApi | undefined;
  if (api !== undefined && api in CONVERSATIONS && CONVERSATIONS[api].fits(json)) return readTurnAs(api, json, route);
  // A compatible server's own prefix (`/api/v1/messages`, `/llm/responses`) still names the API by its last segments.
  if (Array.isArray(json.messages))
    return readTurnAs(request.upstream.includes('anthropic') || /\/v1\/messages$/.test(request.path) ? 'anthropic-messages' : 'openai-chat', json);
  if (CONVERSATIONS['openai-responses'].fits(json) && (/\/responses$/.test(request.path) || typeof json.instructions === 'string'))
    return readTurnAs('openai-responses', json);
  return undefined;
}

function readJsonBody(view: View, json: unknown): void {
  if (isRecord(json)) {
    const turn = turnOf(view.request, json);
    if (turn !== undefined) {
      const conversation = CONVERSATIONS[turn.api as PagedApi];
      // Azure OpenAI speaks OpenAI's APIs, Vertex AI Gemini's and Anthropic's: the page names whose server it was.
      const server = guessProvider(view.request.upstream);
      view.format = server === 'azure' ? `Azure ${conversation.format}` : server === 'vertex' ? `Vertex AI ${conversation.format}` : conversation.format;
      view.fields = fieldsOf(json, conversation.consumed);
      view.tools =
        turn.api === 'gemini-generate'
          ? geminiToolsOf(json.tools)
          : json.tools === undefined && isRecord(json.toolConfig)
            ? bedrockToolsOf(json.toolConfig)
            : toolsOf(json.tools);
      view.entries = turn.items.map(entryOf);
      return;
    }
    // An MCP call shows its method, its id and its params as fields.
    if (isJsonRpcMessage(json)) view.format = 'MCP (JSON-RPC)';
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

/** Gemini's tools: each function declaration on its own (`.tools[0].functionDeclarations[1]`), any other tool (`googleSearch`, …) by its key. */
function geminiToolsOf(tools: unknown): ToolOffer[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool, index): ToolOffer[] => {
    const path = indexPath('.tools', index);
    const key = isRecord(tool) ? ['functionDeclarations', 'function_declarations'].find((name) => Array.isArray(tool[name])) : undefined;
    if (key === undefined) {
      const name = isRecord(tool) ? (Object.keys(tool)[0] ?? `tool ${index}`) : `tool ${index}`;
      return [{ path, name, description: undefined, definition: { path, value: tool, mode: 'json' } }];
    }
    return ((tool as Record<string, unknown>)[key] as unknown[]).map((declaration, position) => {
      const at = indexPath(propertyPath(path, key), position);
      const name = isRecord(declaration) ? (stringOr(declaration.name) ?? `tool ${index}.${position}`) : `tool ${index}.${position}`;
      const description = isRecord(declaration) ? stringOr(declaration.description) : undefined;
      return { path: at, name, description, definition: { path: at, value: declaration, mode: 'json' } };
    });
  });
}

/** Bedrock's tools (`toolConfig.tools`): each `toolSpec` by its name, any other tool (`cachePoint`, `systemTool`) by its member. */
function bedrockToolsOf(toolConfig: Record<string, unknown>): ToolOffer[] {
  if (!Array.isArray(toolConfig.tools)) return [];
  return toolConfig.tools.map((tool, index) => {
    const path = indexPath('.toolConfig.tools', index);
    const spec = isRecord(tool) && isRecord(tool.toolSpec) ? tool.toolSpec : undefined;
    const name = spec !== undefined ? (stringOr(spec.name) ?? `tool ${index}`) : isRecord(tool) ? (Object.keys(tool)[0] ?? `tool ${index}`) : `tool ${index}`;
    return { path, name, description: spec === undefined ? undefined : stringOr(spec.description), definition: { path, value: tool, mode: 'json' } };
  });
}

/** A message or item as a chat bubble. */
function entryOf(item: AskedItem): Entry {
  const [first] = item.parts;
  const alone = item.parts.length === 1 && first !== undefined && first.path === item.path ? first : undefined;
  if (item.role === undefined && alone?.kind === 'unknown') {
    return {
      path: item.path,
      style: 'other',
      label: alone.type ?? 'item',
      parts: [{ kind: 'block', path: item.path, label: 'as sent', leaf: { path: item.path, value: alone.value, mode: 'json' } }],
    };
  }
  const role = item.role ?? 'message';
  // A tool message (OpenAI, Ollama) or output item (Responses) is the result itself: the bubble says whose.
  if (alone?.kind === 'tool-result') {
    const entry: Entry = { path: item.path, style: 'tool', label: 'tool result', parts: alone.parts.map(partOf) };
    if (alone.name !== undefined) entry.tool = alone.name;
    if (alone.idPath !== undefined) entry.id = { path: alone.idPath, value: alone.toolCallId, mode: 'text' };
    return entry;
  }
  // A Responses function_call item is the call itself.
  if (alone?.kind === 'tool-call') return { path: item.path, style: styleOf(role), label: `${role} · function call`, parts: [partOf(alone)] };
  // A top-level system prompt is labelled by its field (`system`, `instructions`, `systemInstruction`).
  const label = role === 'system' && !item.path.includes('[') ? item.path.slice(1) : role;
  const parts = item.parts.map(partOf);
  // A Responses reasoning item is the model thinking, not speaking.
  if (item.type === 'reasoning') return { path: item.path, style: styleOf(role), label: `${role} · reasoning`, parts };
  // A user turn that only carries tool results reads as the tool speaking.
  if (item.parts.length > 0 && item.parts.every((part) => part.kind === 'tool-result'))
    return { path: item.path, style: 'tool', label: `${label} · tool result`, parts };
  return { path: item.path, style: styleOf(role), label, parts };
}

function styleOf(role: string): Style {
  if (role === 'system' || role === 'developer') return 'system';
  if (role === 'user') return 'user';
  if (role === 'assistant' || role === 'model') return 'assistant';
  if (role === 'tool' || role === 'function') return 'tool';
  return 'other';
}

function partOf(part: AskedPart): Part {
  switch (part.kind) {
    case 'text':
      return { kind: 'text', leaf: { path: part.path, value: part.text, mode: 'text' } };
    case 'refusal':
    case 'thinking':
      // Captioned: not the message's own words.
      return { kind: 'text', label: part.kind, leaf: { path: part.path, value: part.text, mode: 'text' } };
    case 'redacted-thinking':
      return { kind: 'block', path: part.path, label: 'redacted thinking', leaf: { path: part.data.path, value: part.data.value, mode: 'brief' } };
    case 'image':
    case 'file':
      return {
        kind: 'block',
        path: part.path,
        label: part.kind === 'image' ? 'image' : part.type === 'document' ? 'document' : 'file',
        leaf: { path: part.source.path, value: part.source.value, mode: 'brief' },
      };
    case 'tool-call':
      return {
        kind: 'call',
        path: part.path,
        name: { path: part.paths.name, value: part.name, mode: 'text' },
        arguments: { path: part.paths.arguments, value: part.arguments, mode: 'text' },
        id: part.paths.id === undefined ? undefined : { path: part.paths.id, value: part.id, mode: 'text' },
      };
    case 'tool-result':
      return {
        kind: 'result',
        path: part.path,
        id: part.idPath === undefined ? undefined : { path: part.idPath, value: part.toolCallId, mode: 'text' },
        tool: part.name,
        error: part.isError,
        parts: part.parts.map(partOf),
      };
    case 'unknown':
      // A list's element is captioned by its type; a content that is not a list, shown whole.
      if (!part.path.endsWith(']')) return { kind: 'block', path: part.path, label: 'content', leaf: { path: part.path, value: part.value, mode: 'json' } };
      if (!isRecord(part.value)) return { kind: 'block', path: part.path, label: 'part', leaf: { path: part.path, value: part.value, mode: 'json' } };
      return { kind: 'block', path: part.path, label: part.type ?? 'part', leaf: { path: part.path, value: part.value, mode: 'brief' } };
  }
}

/** `value` when it is a string. */
function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
