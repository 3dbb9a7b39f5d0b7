/** A tool call in an answer. `arguments` is the object the tool receives. */
export interface ToolCallAnswer {
  name: string;
  arguments: unknown;
  /** @default a fake id such as `fake-call-0` */
  id?: string;
}

/** What a turn answers, before any wire format. */
export type Answer = { kind: 'text'; text: string } | { kind: 'tool-calls'; calls: ToolCallAnswer[]; text?: string } | { kind: 'structured'; value: unknown };
