import { indexPath, isRecord, propertyPath } from '../../../core/internal.js';
import { base64Bytes, type AskedPart } from '../../turn.js';

/**
 * The shapes a Converse body is made of, read the same way by the request reader and the
 * refusals (and by the Amazon Nova InvokeModel body, which has the same messages): a message's
 * `content` is a list of blocks, each a union with one member (`{text}`, `{image}`, `{document}`,
 * `{video}`, `{toolUse}`, `{toolResult}`, `{reasoningContent}`, `{cachePoint}`, `{guardContent}`…),
 * per the API reference's ContentBlock.
 */

export type Block = Record<string, unknown>;

/** A message's content blocks (what is not an object dropped; a content that is not a list has none). */
export function blocksOf(content: unknown): Block[] {
  return Array.isArray(content) ? (content.filter(isRecord) as Block[]) : [];
}

/** The one member a union block holds (`text`, `toolUse`, …), or undefined when it holds none. */
export function memberOf(block: Block): string | undefined {
  return Object.keys(block)[0];
}

/** A `toolUse` block's call, or undefined for any other block. */
export function toolUseOf(block: Block): { id: string; name: string; input: unknown } | undefined {
  const use = block.toolUse;
  if (!isRecord(use)) return undefined;
  return { id: String(use.toolUseId), name: String(use.name), input: use.input ?? {} };
}

/** A `toolResult` block's result, or undefined for any other block. */
export function toolResultOf(block: Block): { id: string; content: unknown; isError: boolean } | undefined {
  const result = block.toolResult;
  if (!isRecord(result)) return undefined;
  return { id: String(result.toolUseId), content: result.content, isError: result.status === 'error' };
}

/** The text of blocks: their `text` members joined (a `json` member of a tool result as its JSON). */
export function blocksText(content: unknown): string {
  return blocksOf(content)
    .map((block) => (typeof block.text === 'string' ? block.text : block.json !== undefined ? JSON.stringify(block.json) : ''))
    .join('');
}

/** The text blocks of a system list (`system: [{text}, {cachePoint}]`), joined. */
export function systemText(system: unknown): string | undefined {
  if (!Array.isArray(system)) return undefined;
  return blocksText(system);
}

// Media types of the document formats the API reference lists (DocumentBlock.format).
const DOCUMENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  txt: 'text/plain',
  md: 'text/markdown',
};

/**
 * One content block as `AskedMessage.parts` and the drift page show it, at `path`
 * (`.messages[1].content[0]`): text; an image, document or video (its `source`: base64 `bytes`,
 * an `s3Location`, or a document's `text`); a tool use; a tool result with its content; reasoning
 * as thinking (redacted reasoning as its data); anything else (`cachePoint`, `guardContent`, …) an
 * `unknown` part named by its member. `names` learns each tool use's name by id.
 */
export function converseBlockPart(block: unknown, path: string, names: Map<string, string>): AskedPart {
  if (!isRecord(block)) return { kind: 'unknown', path, type: undefined, value: block };
  if (typeof block.text === 'string') return { kind: 'text', path: propertyPath(path, 'text'), text: block.text };
  for (const member of ['image', 'document', 'video'] as const) {
    const media = block[member];
    if (!isRecord(media)) continue;
    const source = isRecord(media.source) ? media.source : {};
    const format = typeof media.format === 'string' ? media.format : undefined;
    const mediaType = format === undefined ? undefined : member === 'document' ? (DOCUMENT_TYPES[format] ?? format) : `${member}/${format}`;
    const location = isRecord(source.s3Location) && typeof source.s3Location.uri === 'string' ? source.s3Location.uri : undefined;
    return {
      kind: member === 'image' ? 'image' : 'file',
      path,
      type: member,
      source: { path: propertyPath(propertyPath(path, member), 'source'), value: media.source },
      ...(location === undefined ? {} : { url: location }),
      ...(mediaType === undefined ? {} : { mediaType }),
      ...(typeof source.bytes === 'string' ? { bytes: base64Bytes(source.bytes) } : {}),
    };
  }
  const use = toolUseOf(block);
  if (use !== undefined) {
    const usePath = propertyPath(path, 'toolUse');
    names.set(use.id, use.name);
    return {
      kind: 'tool-call',
      path,
      id: use.id,
      name: use.name,
      arguments: (block.toolUse as Record<string, unknown>).input,
      paths: { id: propertyPath(usePath, 'toolUseId'), name: propertyPath(usePath, 'name'), arguments: propertyPath(usePath, 'input') },
    };
  }
  const result = toolResultOf(block);
  if (result !== undefined) {
    const resultPath = propertyPath(path, 'toolResult');
    const contentPath = propertyPath(resultPath, 'content');
    return {
      kind: 'tool-result',
      path,
      toolCallId: result.id,
      idPath: propertyPath(resultPath, 'toolUseId'),
      name: names.get(result.id),
      isError: result.isError,
      parts: Array.isArray(result.content) ? result.content.map((inner, index) => toolResultPart(inner, indexPath(contentPath, index), names)) : [],
    };
  }
  if (isRecord(block.reasoningContent)) {
    const reasoning = block.reasoningContent;
    const reasoningPath = propertyPath(path, 'reasoningContent');
    if (isRecord(reasoning.reasoningText) && typeof reasoning.reasoningText.text === 'string')
      return { kind: 'thinking', path: propertyPath(propertyPath(reasoningPath, 'reasoningText'), 'text'), text: reasoning.reasoningText.text };
    if (reasoning.redactedContent !== undefined)
      return { kind: 'redacted-thinking', path, data: { path: propertyPath(reasoningPath, 'redactedContent'), value: reasoning.redactedContent } };
  }
  return { kind: 'unknown', path, type: memberOf(block), value: block };
}

// A tool result's content block: text, JSON (shown as its text), an image or a document.
function toolResultPart(block: unknown, path: string, names: Map<string, string>): AskedPart {
  if (isRecord(block) && block.json !== undefined && block.text === undefined)
    return { kind: 'text', path: propertyPath(path, 'json'), text: JSON.stringify(block.json) };
  return converseBlockPart(block, path, names);
}
