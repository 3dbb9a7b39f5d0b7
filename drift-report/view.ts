// What a request body shows, independent of HTML: parameters, tools, conversation entries, each
// piece of text addressed by the JSON path of the value it comes from. Built by view-of.ts.

import type { DriftRequest } from './drift-report.js';

/** How a value is shown: `text` strings as they are, `value` too but objects pretty when long, `json` always as JSON, `brief` abbreviated. */
export type LeafMode = 'text' | 'value' | 'json' | 'brief';

/** A value shown on the page, addressed like a `Difference` (`.messages[1].content`, `header x`). */
export interface Leaf {
  path: string;
  value: unknown;
  mode: LeafMode;
}

export type Part =
  | { kind: 'text'; leaf: Leaf; label?: string }
  | { kind: 'call'; path: string; name: Leaf; arguments: Leaf; id: Leaf | undefined }
  | { kind: 'result'; path: string; id: Leaf | undefined; tool: string | undefined; error: boolean; parts: Part[] }
  | { kind: 'block'; path: string; label: string; leaf: Leaf };

export type Style = 'system' | 'user' | 'assistant' | 'tool' | 'other';

/** One message or input item: a chat bubble. */
export interface Entry {
  path: string;
  style: Style;
  label: string;
  /** For a tool result bubble: the tool's name and the call id it answers. */
  tool?: string;
  id?: Leaf;
  parts: Part[];
}

export interface ToolOffer {
  path: string;
  name: string;
  description: string | undefined;
  definition: Leaf;
}

export interface View {
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
