import { indexPath, isRecord, propertyPath } from '../../core/internal.js';
import { askedTurn, type AskedItem, type AskedMessage, type AskedTool, type AskedTurn, type ResponseSchema, type ToolExchange } from '../turn.js';
import type { Route } from '../vocabulary.js';
import {
  contentPart,
  contentsOf,
  declarationsOf,
  functionCallOf,
  functionResponseOf,
  generationConfigOf,
  partsText,
  responseIsError,
  responseText,
  systemInstructionItem,
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
  const items: AskedItem[] = [];
  const instruction = systemInstructionItem(body);
  if (instruction !== undefined) items.push(instruction);
  const contents = contentsOf(body);
  // contentsOf reads `contents` one for one, so `contents[position]` is the content at `.contents[position]`.
  for (const [position, sent] of (Array.isArray(body.contents) ? (body.contents as unknown[]) : []).entries()) {
    const path = indexPath('.contents', position);
    const partsPath = propertyPath(path, 'parts');
    const parts = isRecord(sent) && Array.isArray(sent.parts) ? sent.parts.map((part, index) => contentPart(part, indexPath(partsPath, index))) : [];
    if (!isRecord(sent)) items.push({ path, role: undefined, parts: [{ kind: 'unknown', path, type: undefined, value: sent }] });
    // A content without a role is the user's, as Gemini reads it.
    else items.push({ path, role: typeof sent.role === 'string' ? sent.role : 'user', parts });
    const content = contents[position]!;
    const text = partsText(content.parts);
    if (content.role === 'model') {
      const calls = content.parts.map(functionCallOf).filter((call) => call !== undefined);
      const toolCalls = calls.map((call) => ({ id: call.id ?? call.name, name: call.name, arguments: call.args }));
      messages.push(toolCalls.length > 0 ? { role: 'assistant', text, toolCalls, path, parts } : { role: 'assistant', text, path, parts });
      continue;
    }
    const responses = content.parts.map(functionResponseOf).filter((response) => response !== undefined);
    // Gemini pairs a response with its call by name (and by id, when the call had one).
    const results = parts.filter((part) => part.kind === 'tool-result');
    responses.forEach((response, index) =>
      messages.push({
        role: 'tool',
        text: responseText(response.response),
        toolCallId: response.id ?? response.name,
        path: results[index]?.path,
        parts: results[index]?.parts ?? [],
      }),
    );
    if (text !== '' || responses.length === 0) messages.push({ role: 'user', text, path, parts: parts.filter((part) => part.kind !== 'tool-result') });
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
    items,
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
