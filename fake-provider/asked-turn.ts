/**
 * What one model call was shown, the same way whichever wire format carried it. Built from the
 * request by each surface (openai-chat/, openai-responses/, anthropic-messages/).
 */
export interface AskedTurn {
  /** 0-based position among every call the fake received (embeddings and model lists included). */
  index: number;
  provider: 'openai' | 'anthropic';
  endpoint: ModelEndpoint;
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

export type ModelEndpoint = 'chat.completions' | 'responses' | 'messages';

export interface AskedMessage {
  role: 'user' | 'assistant' | 'tool';
  /** The text of the message (text parts joined); for a tool result, the result. */
  text: string;
  /** Tool calls an assistant message made. */
  toolCalls?: Array<{ id: string; name: string; arguments: unknown }>;
  /** For a tool result: the call it answers. */
  toolCallId?: string;
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

/** A tool call in an answer. `arguments` is the object the tool receives. */
export interface ToolCallAnswer {
  name: string;
  arguments: unknown;
  /** @default a fake id such as `fake-call-0` */
  id?: string;
}

/** What a turn answers, before any wire format. */
export type Answer = { kind: 'text'; text: string } | { kind: 'tool-calls'; calls: ToolCallAnswer[]; text?: string } | { kind: 'structured'; value: unknown };
