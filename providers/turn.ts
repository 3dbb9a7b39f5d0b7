import { indexPath, isRecord, propertyPath } from '../core/internal.js';
import type { Provider, TurnApi } from './vocabulary.js';

/**
 * What one model call was shown, the same way whichever wire format carried it. Read from the
 * request by each API's reader (openai/chat/, openai/responses/, anthropic/messages/, …).
 */
export interface AskedTurn {
  /** 0-based position among every call the fake received (embeddings and model lists included). */
  index: number;
  provider: Provider;
  /** The wire API the request was in. */
  api: TurnApi;
  model: string;
  /** The system prompt: system/developer messages, `instructions` or `system`, joined by blank lines. */
  system: string | undefined;
  /** The conversation after the system prompt, in order. */
  messages: AskedMessage[];
  /** The tools offered, in order. */
  tools: AskedTool[];
  /** The tool choice as sent (`"auto"`, `{type:"tool",name}`, …), or undefined. */
  toolChoice: unknown;
  /** The JSON Schema the answer must follow, when the request asked for one. */
  responseSchema: ResponseSchema | undefined;
  /** The tool results this turn was told about: those after the last assistant turn. */
  exchanges: ToolExchange[];
  /** Whether the response streams. */
  stream: boolean;
  /**
   * The conversation as sent, in body order: every message or input item, the system prompt and
   * the items the reader does not know included, each with its JSON path and typed parts. What a
   * page draws; `system` and `messages` are what the model is shown.
   */
  items: AskedItem[];
  /** The request body, parsed. */
  body: Record<string, unknown>;
  /** The conversation as text, one `role: text` line per message, system first (what `prompt` globs match). */
  prompt: string;
}

export interface AskedMessage {
  role: 'user' | 'assistant' | 'tool';
  /** The text of the message (text parts joined); for a tool result, the result. */
  text: string;
  /** Tool calls an assistant message made. */
  toolCalls?: Array<{ id: string; name: string; arguments: unknown }>;
  /** For a tool result: the call it answers. */
  toolCallId?: string;
  /**
   * Where in the request body the message is, in JSON access syntax (`.messages[2]`,
   * `.input[0]`, `.messages[3].content[1]` for an Anthropic tool result block), so a page or an
   * error can point at it.
   */
  path?: string;
  /**
   * What the message holds, in order, each part with its JSON path: text, images, thinking,
   * refusals, tool calls; for a tool result, the result's content.
   */
  parts: AskedPart[];
}

/**
 * One message or input item as sent (`.messages[2]`, `.input[0]`, `.contents[1]`), or a top-level
 * field that stands for one (`.system`, `.instructions`, `.systemInstruction`, `.prompt`).
 */
export interface AskedItem {
  path: string;
  /**
   * The role the wire gives it, as sent (`system`, `developer`, `user`, `assistant`, `model`,
   * `tool`, `function`): `system` for a top-level system prompt, `assistant` for a Responses
   * `function_call` or `reasoning` item, `tool` for a tool output item, `user` for a Gemini content without one;
   * undefined when the item has none (then an unknown item is one `unknown` part at its own path).
   */
  role: string | undefined;
  /** The item's type, when the wire gives items one (Responses: `message`, `function_call`, `function_call_output`, `reasoning`…). */
  type?: string;
  parts: AskedPart[];
}

/** Where a value is in the body and the value as sent. */
export interface AskedValue {
  path: string;
  value: unknown;
}

/**
 * One piece of a message, in the order sent, with its JSON path (`.messages[2].content[1]`).
 * For `text`, `refusal` and `thinking` the path is that of the string itself
 * (`.messages[0].content`, `.messages[1].content[0].text`, `.contents[1].parts[0].text`).
 */
export type AskedPart =
  | { kind: 'text' | 'refusal' | 'thinking'; path: string; text: string }
  /** Thinking the provider encrypted (Anthropic `redacted_thinking`, a Responses reasoning item's `encrypted_content`): only its data is sent back. */
  | { kind: 'redacted-thinking'; path: string; data: AskedValue }
  | {
      /** `image` for an image; `file` for a document or any other file. */
      kind: 'image' | 'file';
      path: string;
      /** The wire's name for it: `image_url`, `input_image`, `file`, `input_file`, `image`, `document`, `inlineData`, `fileData`, `images`. */
      type: string;
      /** The address or the bytes as sent (a URL, a data URL, base64, a file id, Anthropic's `source`). */
      source: AskedValue;
      url?: string;
      mediaType?: string;
      /** The size of inline (base64) bytes. */
      bytes?: number;
    }
  | {
      kind: 'tool-call';
      path: string;
      id: string | undefined;
      name: string;
      /** As sent: a JSON string (OpenAI), an object (Anthropic, Gemini, Ollama), text (a custom tool). */
      arguments: unknown;
      paths: { id: string | undefined; name: string; arguments: string };
    }
  | {
      kind: 'tool-result';
      path: string;
      toolCallId: string | undefined;
      /** Where the call id is, when one was sent (Gemini and Ollama may pair a result with its call by the tool's name alone). */
      idPath: string | undefined;
      /** The tool's name: sent with the result, or from the call it answers. */
      name: string | undefined;
      isError: boolean;
      parts: AskedPart[];
    }
  /** A part no reader here knows (or one that is malformed), kept whole; `type` is its wire type name, when it has one. */
  | { kind: 'unknown'; path: string; type: string | undefined; value: unknown };

export interface AskedTool {
  name: string;
  description: string | undefined;
  /** The tool's JSON Schema for its arguments. */
  parameters: unknown;
  /** Whether the provider must follow the schema exactly (OpenAI `strict`, Anthropic `strict`). */
  strict: boolean;
}

export interface ResponseSchema {
  /** Where the schema came from, as the provider names it in errors (`response_format`, `text.format`, `output_config.format`). */
  source: string;
  name: string | undefined;
  schema: unknown;
  strict: boolean;
}

export interface ToolExchange {
  toolCallId: string;
  /** The tool's name, from the call this result answers, when the conversation holds it. */
  name: string | undefined;
  result: string;
  isError: boolean;
}

/**
 * A turn as it is reported, from what a reader took out of the request body: the fields every
 * API fills alike (model, tool choice, stream, body, prompt) are filled here.
 */
export function askedTurn(
  body: Record<string, unknown>,
  read: Pick<AskedTurn, 'index' | 'provider' | 'api' | 'system' | 'messages' | 'tools' | 'responseSchema' | 'exchanges' | 'items'> &
    Partial<Pick<AskedTurn, 'model' | 'stream' | 'toolChoice'>>,
): AskedTurn {
  return {
    model: String(body.model),
    toolChoice: body.tool_choice,
    stream: body.stream === true,
    ...read,
    body,
    prompt: renderPrompt(read.system, read.messages),
  };
}

/** `role: text` lines, system first: what `prompt` globs match against. */
export function renderPrompt(system: string | undefined, messages: readonly AskedMessage[]): string {
  const lines: string[] = [];
  if (system !== undefined) lines.push(`system: ${system}`);
  for (const message of messages) {
    let line = `${message.role}: ${message.text}`;
    for (const call of message.toolCalls ?? []) line += `${line.endsWith(': ') ? '' : ' '}[${call.name}(${JSON.stringify(call.arguments)})]`;
    lines.push(line);
  }
  return lines.join('\n');
}

/** A tool choice in any provider's form, read one way. */
export interface ToolChoice {
  /** `auto`: the model may call a tool; `none`: it may not; `required`: it must. */
  mode: 'auto' | 'none' | 'required';
  /** The one tool it must call, when the choice names one. */
  name?: string;
  /** The only tools it may call, when the choice lists several (Gemini's `allowedFunctionNames`). */
  allowed?: readonly string[];
}

/**
 * Reads OpenAI chat (`"required"`, `{type:"function",function:{name}}`), Responses
 * (`{type:"function",name}`), Anthropic (`{type:"any"|"tool"|"none",name}`) and Gemini
 * (`toolConfig`: `{functionCallingConfig:{mode:"AUTO"|"ANY"|"NONE"|"VALIDATED",allowedFunctionNames}}`)
 * and Bedrock Converse (`toolConfig.toolChoice`: `{auto:{}}`, `{any:{}}`, `{tool:{name}}`) tool choices.
 */
export function readToolChoice(choice: unknown): ToolChoice {
  if (choice === 'none' || choice === 'required') return { mode: choice };
  if (!isRecord(choice)) return { mode: 'auto' };
  const calling = choice.functionCallingConfig ?? choice.function_calling_config;
  if (isRecord(calling)) {
    const mode = String(calling.mode ?? 'AUTO').toUpperCase();
    if (mode === 'NONE') return { mode: 'none' };
    const listed = calling.allowedFunctionNames ?? calling.allowed_function_names;
    const allowed = Array.isArray(listed) && listed.length > 0 ? listed.map(String) : undefined;
    // VALIDATED may answer text, or call one of the allowed functions.
    if (mode === 'VALIDATED') return allowed === undefined ? { mode: 'auto' } : { mode: 'auto', allowed };
    if (mode !== 'ANY') return { mode: 'auto' };
    // ANY with one allowed name forces that function; with several, the model must call one of them.
    if (allowed === undefined) return { mode: 'required' };
    return allowed.length === 1 ? { mode: 'required', name: allowed[0]!, allowed } : { mode: 'required', allowed };
  }
  // Bedrock Converse's `toolConfig.toolChoice`, a union: `{auto: {}}`, `{any: {}}` or `{tool: {name}}`.
  if (isRecord(choice.any)) return { mode: 'required' };
  if (isRecord(choice.tool) && typeof choice.tool.name === 'string') return { mode: 'required', name: choice.tool.name };
  if (choice.type === 'none') return { mode: 'none' };
  if (choice.type === 'any') return { mode: 'required' };
  if (choice.type === 'tool' && typeof choice.name === 'string') return { mode: 'required', name: choice.name };
  if (choice.type === 'function') {
    const name = isRecord(choice.function) ? choice.function.name : choice.name;
    return typeof name === 'string' ? { mode: 'required', name } : { mode: 'required' };
  }
  return { mode: 'auto' };
}

/** Text of a content value: a string, or the `text` of each text part joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (typeof part === 'string') return part;
      if (part && typeof part === 'object') {
        const record = part as Record<string, unknown>;
        if (typeof record.text === 'string') return record.text;
        if (typeof record.content === 'string') return record.content;
      }
      return '';
    })
    .join('');
}

/** Parses tool-call arguments sent back in a conversation; text that is not JSON stays text. */
export function parseArguments(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The tool results at the end of a conversation (after the last assistant turn), with the names of the calls they answer. */
export function trailingToolResults(messages: readonly AskedMessage[], names: ReadonlyMap<string, string>): ToolExchange[] {
  const results: ToolExchange[] = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]!.role === 'tool'; index--) {
    const message = messages[index]!;
    results.unshift({ toolCallId: message.toolCallId!, name: names.get(message.toolCallId!), result: message.text, isError: false });
  }
  return results;
}

/**
 * A message's `content` as parts: a string is one text part; a list holds OpenAI chat and
 * Responses content parts (`text`, `input_text`, `output_text`, `refusal`, `image_url`,
 * `input_image`, `file`, `input_file`) and Anthropic blocks (`text`, `thinking`, `redacted_thinking`, `image`,
 * `document`, `tool_use`, `tool_result`), read alike because a compatible server may take either;
 * anything else is an `unknown` part. `names` learns each tool call's name by id, so a result
 * after it can say which tool it answers.
 */
export function contentParts(content: unknown, path: string, names: Map<string, string>): AskedPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ kind: 'text', path, text: content }];
  if (!Array.isArray(content)) return [{ kind: 'unknown', path, type: undefined, value: content }];
  return content.map((block, index) => blockPart(block, indexPath(path, index), names));
}

function blockPart(block: unknown, path: string, names: Map<string, string>): AskedPart {
  if (typeof block === 'string') return { kind: 'text', path, text: block };
  if (!isRecord(block)) return { kind: 'unknown', path, type: undefined, value: block };
  const type = typeof block.type === 'string' ? block.type : undefined;
  switch (type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      if (typeof block.text === 'string') return { kind: 'text', path: propertyPath(path, 'text'), text: block.text };
      break;
    case 'refusal':
      if (typeof block.refusal === 'string') return { kind: 'refusal', path: propertyPath(path, 'refusal'), text: block.refusal };
      break;
    case 'thinking':
      if (typeof block.thinking === 'string') return { kind: 'thinking', path: propertyPath(path, 'thinking'), text: block.thinking };
      break;
    case 'redacted_thinking':
      return { kind: 'redacted-thinking', path, data: { path: propertyPath(path, 'data'), value: block.data } };
    case 'tool_use':
    case 'server_tool_use': {
      const id = typeof block.id === 'string' ? block.id : undefined;
      if (id !== undefined && typeof block.name === 'string') names.set(id, block.name);
      return {
        kind: 'tool-call',
        path,
        id,
        name: String(block.name),
        arguments: block.input ?? {},
        paths: { id: block.id === undefined ? undefined : propertyPath(path, 'id'), name: propertyPath(path, 'name'), arguments: propertyPath(path, 'input') },
      };
    }
    case 'tool_result': {
      const id = typeof block.tool_use_id === 'string' ? block.tool_use_id : undefined;
      return {
        kind: 'tool-result',
        path,
        toolCallId: id,
        idPath: block.tool_use_id === undefined ? undefined : propertyPath(path, 'tool_use_id'),
        name: id === undefined ? undefined : names.get(id),
        isError: block.is_error === true,
        parts: contentParts(block.content, propertyPath(path, 'content'), names),
      };
    }
    case 'image_url':
      if (isRecord(block.image_url)) {
        const url = block.image_url.url;
        return { kind: 'image', path, type, source: { path: propertyPath(propertyPath(path, 'image_url'), 'url'), value: url }, ...inline(url) };
      }
      break;
    case 'input_image': {
      const name = block.image_url !== undefined ? 'image_url' : 'file_id';
      return { kind: 'image', path, type, source: { path: propertyPath(path, name), value: block[name] }, ...inline(block.image_url) };
    }
    case 'input_file': {
      const name = ['file_id', 'file_url', 'file_data'].find((key) => block[key] !== undefined) ?? 'file_id';
      // A file id is no address: only a URL or a data URL says where the file is or what it holds.
      return { kind: 'file', path, type, source: { path: propertyPath(path, name), value: block[name] }, ...(name === 'file_id' ? {} : inline(block[name])) };
    }
    case 'file':
      if (isRecord(block.file)) {
        const file = block.file;
        const name = ['file_id', 'file_data'].find((key) => file[key] !== undefined) ?? 'file_id';
        return {
          kind: 'file',
          path,
          type,
          source: { path: propertyPath(propertyPath(path, 'file'), name), value: file[name] },
          ...(name === 'file_id' ? {} : inline(file[name])),
        };
      }
      break;
    case 'image':
    case 'document': {
      const source = isRecord(block.source) ? block.source : {};
      const data = source.type === 'base64' && typeof source.data === 'string' ? source.data : undefined;
      return {
        kind: type === 'image' ? 'image' : 'file',
        path,
        type,
        source: { path: propertyPath(path, 'source'), value: block.source },
        ...(typeof source.url === 'string' ? { url: source.url } : {}),
        ...(typeof source.media_type === 'string' ? { mediaType: source.media_type } : {}),
        ...(data === undefined ? {} : { bytes: base64Bytes(data) }),
      };
    }
  }
  return { kind: 'unknown', path, type, value: block };
}

/** What a URL says of an image or file: a data URL's media type and size, any other URL as the address. */
function inline(url: unknown): { url?: string; mediaType?: string; bytes?: number } {
  if (typeof url !== 'string') return {};
  const data = /^data:([^;,]*)(;base64)?,/.exec(url);
  if (data === null) return { url };
  return { ...(data[1] ? { mediaType: data[1] } : {}), ...(data[2] ? { bytes: base64Bytes(url.slice(data[0].length)) } : {}) };
}

/** How many bytes a base64 text decodes to. */
export function base64Bytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

/** An image sent as bare base64 (Ollama's `images`): its media type told by its first bytes. */
export function sniffedImageType(base64: string): string | undefined {
  if (base64.startsWith('iVBORw0KGgo')) return 'image/png';
  if (base64.startsWith('/9j/')) return 'image/jpeg';
  if (base64.startsWith('R0lGOD')) return 'image/gif';
  if (base64.startsWith('UklGR')) return 'image/webp';
  return undefined;
}

/**
 * A tool call in OpenAI's form, as OpenAI chat and Ollama send them back:
 * `{id, type:"function", function:{name, arguments}}`, or a chat custom tool's
 * `{id, type:"custom", custom:{name, input}}`; anything else is an `unknown` part.
 */
export function functionCallPart(call: unknown, path: string, names: Map<string, string>): AskedPart {
  const key = isRecord(call) ? (isRecord(call.function) ? 'function' : call.type === 'custom' && isRecord(call.custom) ? 'custom' : undefined) : undefined;
  if (!isRecord(call) || key === undefined)
    return { kind: 'unknown', path, type: isRecord(call) && typeof call.type === 'string' ? call.type : undefined, value: call };
  const called = call[key] as Record<string, unknown>;
  const argumentsName = key === 'custom' ? 'input' : 'arguments';
  const id = call.id === undefined ? undefined : String(call.id);
  if (id !== undefined && typeof called.name === 'string') names.set(id, called.name);
  const functionPath = propertyPath(path, key);
  return {
    kind: 'tool-call',
    path,
    id,
    name: String(called.name),
    arguments: called[argumentsName],
    paths: {
      id: id === undefined ? undefined : propertyPath(path, 'id'),
      name: propertyPath(functionPath, 'name'),
      arguments: propertyPath(functionPath, argumentsName),
    },
  };
}
