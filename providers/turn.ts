import { isRecord } from '../core/internal.js';
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
}

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
  read: Pick<AskedTurn, 'index' | 'provider' | 'api' | 'system' | 'messages' | 'tools' | 'responseSchema' | 'exchanges'> &
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
 * tool choices.
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
