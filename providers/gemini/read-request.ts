import { isRecord } from '../../core/internal.js';
import { askedTurn, type AskedMessage, type AskedTool, type AskedTurn, type ResponseSchema, type ToolExchange } from '../turn.js';
import type { Route } from '../vocabulary.js';
import {
  contentsOf,
  declarationsOf,
  functionCallOf,
  functionResponseOf,
  generationConfigOf,
  partsText,
  responseIsError,
  responseText,
  systemInstructionOf,
  type Part,
} from './contents.js';
import { openApiToJsonSchema } from './schema.js';

/**
 * What a `generateContent` (or `streamGenerateContent`) request shows the model: the system
 * instruction, `contents` (role `model` is the assistant; function responses are tool results),
 * the function declarations, the tool config and the response schema. The model and whether it
 * streams come from the path (`/v1beta/models/{model}:streamGenerateContent`).
 */
export function readGenerateRequest(body: Record<string, unknown>, index: number, route?: Route): AskedTurn {
  const messages: AskedMessage[] = [];
  const contents = contentsOf(body);
  for (const content of contents) {
    const text = partsText(content.parts);
    if (content.role === 'model') {
      const calls = content.parts.map(functionCallOf).filter((call) => call !== undefined);
      const toolCalls = calls.map((call) => ({ id: call.id ?? call.name, name: call.name, arguments: call.args }));
      messages.push(toolCalls.length > 0 ? { role: 'assistant', text, toolCalls } : { role: 'assistant', text });
      continue;
    }
    const responses = content.parts.map(functionResponseOf).filter((response) => response !== undefined);
    // Gemini pairs a response with its call by name (and by id, when the call had one).
    for (const response of responses) messages.push({ role: 'tool', text: responseText(response.response), toolCallId: response.id ?? response.name });
    if (text !== '' || responses.length === 0) messages.push({ role: 'user', text });
  }
  const tools: AskedTool[] = declarationsOf(body).map(({ declaration }) => ({
    name: String(declaration.name),
    description: typeof declaration.description === 'string' ? declaration.description : undefined,
    parameters:
      declaration.parametersJsonSchema ??
      (declaration.parameters === undefined ? { type: 'object', properties: {} } : openApiToJsonSchema(declaration.parameters)),
    strict: false,
  }));
  const last = contents.at(-1);
  const exchanges: ToolExchange[] =
    last !== undefined && last.role !== 'model'
      ? last.parts
          .map(functionResponseOf)
          .filter((response) => response !== undefined)
          .map((response) => ({
            toolCallId: response.id ?? response.name,
            name: response.name,
            result: responseText(response.response),
            isError: responseIsError(response.response),
          }))
      : [];
  const toolConfig = body.toolConfig ?? body.tool_config;
  return askedTurn(body, {
    index,
    provider: 'gemini',
    api: 'gemini-generate',
    model: route?.model ?? (typeof body.model === 'string' ? body.model.replace(/^models\//, '') : 'unknown'),
    stream: route?.stream === true,
    toolChoice: isRecord(toolConfig) ? toolConfig : undefined,
    system: systemInstructionOf(body),
    messages,
    tools,
    responseSchema: responseSchemaOf(body),
    exchanges,
  });
}

/** The schema `generationConfig` asks a JSON answer to follow (`responseJsonSchema`, or the OpenAPI `responseSchema`). */
export function responseSchemaOf(body: Record<string, unknown>): ResponseSchema | undefined {
  const config = generationConfigOf(body);
  const mimeType = config.responseMimeType ?? config.response_mime_type;
  if (mimeType !== 'application/json') return undefined;
  const json = config.responseJsonSchema ?? config.response_json_schema;
  if (json !== undefined) return { source: 'generationConfig.responseJsonSchema', name: undefined, schema: json, strict: true };
  const openApi = config.responseSchema ?? config.response_schema;
  if (openApi !== undefined) return { source: 'generationConfig.responseSchema', name: undefined, schema: openApiToJsonSchema(openApi), strict: true };
  return undefined;
}

export type { Part };
