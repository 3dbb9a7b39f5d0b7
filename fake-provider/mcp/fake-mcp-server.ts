import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { ModeltapeError, isRecord } from '../../core/internal.js';
import { GenerationCache, generateValue, type JsonSchema } from '../../schema/internal.js';
import { SchemaCheck, describeMismatches } from '../schema-check.js';
import { FAKE_HEADER } from '../wire-response.js';
import { loadMcpSdk, type McpSdk, type McpSdkServer, type McpTransport } from './mcp-sdk.js';

/** What one call of a tool answers. */
export interface FakeMcpAnswer {
  /** Text content: short for `content: [{ type: 'text', text }]`. */
  text?: string;
  /** The result's content blocks (`{ type: 'text', text }`, `{ type: 'image', data, mimeType }`, …). */
  content?: Array<Record<string, unknown>>;
  /** The structured result, checked against the tool's `outputSchema` as the SDK's server checks it. */
  structuredContent?: Record<string, unknown>;
  /** A tool error: the call ran and failed (`isError: true`), which a model is shown and may recover from. */
  isError?: boolean;
  /** A protocol error instead of a result: a JSON-RPC error, which the client raises (`McpError`). */
  error?: { code: number; message: string; data?: unknown };
  /** Wait this long before answering (on the fake's `sleep`). */
  delayMs?: number;
}

/** A scripted tool. */
export interface FakeMcpTool {
  title?: string;
  description?: string;
  /** The JSON Schema of its arguments; every call is checked against it. @default { type: 'object' } */
  inputSchema?: Record<string, unknown>;
  /** The JSON Schema of its structured result: unscripted calls answer a value generated from it. */
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** What every call answers, or a function of its arguments. Unset: an answer generated from `outputSchema`. */
  answer?: FakeMcpAnswer | ((args: Record<string, unknown>, call: FakeMcpCall) => FakeMcpAnswer | Promise<FakeMcpAnswer>);
  /** What the first calls answer, in order; the calls after them answer `answer` (or a generated answer). */
  answers?: FakeMcpAnswer[];
}

/** A resource, by its URI in {@link FakeMcpServerOptions.resources}. */
export interface FakeMcpResource {
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Its text; or `blob`, base64. */
  text?: string;
  blob?: string;
}

/** A prompt template, by its name in {@link FakeMcpServerOptions.prompts}. */
export interface FakeMcpPrompt {
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
  /** Its messages (`{ role: 'user', content: { type: 'text', text } }`), or a function of the arguments. */
  messages: Array<Record<string, unknown>> | ((args: Record<string, string>) => Array<Record<string, unknown>>);
}

export interface FakeMcpServerOptions {
  /** The server's name in its `serverInfo` (its title says it is modeltape's fake). @default 'fake-mcp' */
  name?: string;
  instructions?: string;
  tools?: Record<string, FakeMcpTool>;
  resources?: Record<string, FakeMcpResource>;
  prompts?: Record<string, FakeMcpPrompt>;
  /** Picks the generated answers: the same seed, the same answers. @default 0 */
  seed?: number;
  /** How `delayMs` waits. @default setTimeout */
  sleep?: (milliseconds: number) => Promise<void>;
}

/** One request the fake answered, in order. `initialize` and `ping` are the SDK's, and not listed. */
export interface FakeMcpCall {
  /** 0-based, across every request this fake answered. */
  index: number;
  /** `tools/list`, `tools/call`, `resources/list`, `resources/read`, `prompts/list` or `prompts/get`. */
  method: string;
  /** `tools/call`: the tool, and the arguments as sent. */
  tool?: string;
  arguments?: Record<string, unknown>;
  /** `resources/read`: the URI. */
  uri?: string;
  /** `prompts/get`: the prompt. */
  prompt?: string;
  /** What it answered: the result, or the JSON-RPC error. */
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A fake served over Streamable HTTP. */
export interface FakeMcpHttpServer {
  /** The endpoint to give a client, e.g. `http://127.0.0.1:43121/mcp`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The `_meta` key on every result of a FakeMcpServer: it can never be taken for a real server's. */
export const FAKE_MCP_META = 'modeltape/fake';

// JSON-RPC and MCP error codes the fake answers with, as the SDK's server and the spec name them.
const INVALID_PARAMS = -32602;
const RESOURCE_NOT_FOUND = -32002;
// The characters and length MCP allows in a tool name (2025-06-18 and later).
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * A scripted MCP server: tools with JSON Schemas, their results and errors, resources and prompts,
 * delays and failures. Unscripted calls answer a value generated from the tool's `outputSchema`;
 * every call is checked against the tool's `inputSchema` and refused with the error the SDK's
 * server gives; every request is recorded ({@link calls}). Served in process ({@link connect}),
 * over stdio ({@link serveStdio}) and over Streamable HTTP ({@link listen}), through the
 * official SDK's server. Marked fake: its title, a `_meta` key on every result, and an HTTP header.
 * @example
 * const fake = new FakeMcpServer({ tools: { get_weather: { inputSchema, answer: { text: 'Sunny' } } } });
 * await client.connect(await fake.connect());
 */
export class FakeMcpServer {
  readonly #options: FakeMcpServerOptions;
  readonly #tools: ReadonlyMap<string, FakeMcpTool>;
  readonly #calls: FakeMcpCall[] = [];
  readonly #toolCalls = new Map<string, number>();
  readonly #schemas = new SchemaCheck();
  readonly #generated = new GenerationCache();
  readonly #sleep: (milliseconds: number) => Promise<void>;
  readonly #closers = new Set<() => Promise<void>>();

  constructor(options: FakeMcpServerOptions = {}) {
    this.#options = options;
    const tools = new Map<string, FakeMcpTool>();
    for (const [name, tool] of Object.entries(options.tools ?? {})) {
      if (!TOOL_NAME.test(name)) {
        throw new ModeltapeError(
          'invalid_fake_mcp',
          `Invalid tool name ${JSON.stringify(name)} for FakeMcpServer: MCP tool names are 1 to 128 letters, digits, "_", "-" and ".".`,
        );
      }
      for (const field of ['inputSchema', 'outputSchema'] as const) {
        const schema = tool[field];
        if (schema !== undefined && (!isRecord(schema) || (schema.type !== undefined && schema.type !== 'object'))) {
          throw new ModeltapeError(
            'invalid_fake_mcp',
            `Invalid ${field} for tool ${JSON.stringify(name)}: MCP takes a JSON Schema of an object ({ "type": "object", "properties": … }).`,
          );
        }
        if (schema !== undefined) this.#schemas.check(schema, {});
      }
      tools.set(name, tool);
    }
    this.#tools = tools;
    this.#sleep = options.sleep ?? ((milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)));
  }

  /** Every request answered so far, in order (a copy). */
  calls(): FakeMcpCall[] {
    return this.#calls.map((call) => ({ ...call }));
  }

  /** The `tools/call` requests answered so far, of one tool or of all. */
  toolCalls(tool?: string): FakeMcpCall[] {
    return this.calls().filter((call) => call.method === 'tools/call' && (tool === undefined || call.tool === tool));
  }

  /**
   * Serves one client in process, through the SDK's in-memory transport: the transport to give
   * `client.connect()`. Each call is a new connection to the same script and call list.
   */
  async connect(): Promise<McpTransport> {
    const sdk = await loadMcpSdk();
    const [client, server] = sdk.InMemoryTransport.createLinkedPair();
    const mcp = this.#server(sdk);
    await mcp.connect(server);
    this.#closers.add(() => mcp.close());
    return client as McpTransport;
  }

  /**
   * Serves over stdio, as a server command does: newline-delimited JSON-RPC on `stdin` and
   * `stdout` (the process's own by default). For a script an agent's config starts:
   * `new FakeMcpServer({ tools }).serveStdio()`.
   */
  async serveStdio(streams: { stdin?: Readable; stdout?: Writable } = {}): Promise<{ close(): Promise<void> }> {
    const sdk = await loadMcpSdk();
    const mcp = this.#server(sdk);
    await mcp.connect(new sdk.StdioServerTransport(streams.stdin, streams.stdout));
    const close = () => mcp.close();
    this.#closers.add(close);
    return { close };
  }

  /**
   * Serves over Streamable HTTP at `/mcp` on loopback (port 0 by default): one session per
   * client, numbered `fake-mcp-session-1`, `-2`, … so that runs are alike. Answers are SSE
   * streams, or JSON with `json: true`.
   */
  async listen(options: { port?: number; host?: string; json?: boolean } = {}): Promise<FakeMcpHttpServer> {
    const sdk = await loadMcpSdk();
    const sessions = new Map<string, InstanceType<McpSdk['StreamableHTTPServerTransport']>>();
    const sockets = new Set<Socket>();
    let numbered = 0;
    const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
      response.setHeader(FAKE_HEADER, 'FakeMcpServer');
      if ((request.url ?? '/').split('?')[0] !== '/mcp') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('FakeMcpServer serves MCP at /mcp');
        return;
      }
      const asked = request.headers['mcp-session-id'];
      let transport = typeof asked === 'string' ? sessions.get(asked) : undefined;
      if (transport === undefined && typeof asked === 'string') {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: `Session not found: ${asked} (modeltape FakeMcpServer)` } }));
        return;
      }
      let body: unknown;
      if (transport === undefined) {
        // Only an initialize opens a session: anything else without one is refused before a server is made for it.
        body = request.method === 'POST' ? await readJson(request) : undefined;
        if (!isRecord(body) || body.method !== 'initialize') {
          response.writeHead(400, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: null,
              error: { code: -32000, message: 'Bad Request: no session; send initialize first (modeltape FakeMcpServer)' },
            }),
          );
          return;
        }
        const created = new sdk.StreamableHTTPServerTransport({
          sessionIdGenerator: () => `fake-mcp-session-${++numbered}`,
          enableJsonResponse: options.json === true,
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
        });
        created.onclose = () => {
          if (created.sessionId !== undefined) sessions.delete(created.sessionId);
        };
        const mcp = this.#server(sdk);
        await mcp.connect(created);
        transport = created;
      }
      await transport.handleRequest(request, response, body);
    };
    const http = createServer((request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`FakeMcpServer failed: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
    http.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    const port = (http.address() as AddressInfo).port;
    const host = options.host ?? '127.0.0.1';
    const close = async (): Promise<void> => {
      this.#closers.delete(close);
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    };
    this.#closers.add(close);
    return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`, port, close };
  }

  /** Closes every connection and server it serves. */
  async close(): Promise<void> {
    const closers = [...this.#closers];
    this.#closers.clear();
    await Promise.all(closers.map((close) => close()));
  }

  // One SDK server per connection: each speaks to one transport. The script and the calls are shared.
  #server(sdk: McpSdk): McpSdkServer {
    const { name = 'fake-mcp', instructions, resources = {}, prompts = {} } = this.#options;
    const capabilities: Record<string, object> = { tools: {} };
    if (Object.keys(resources).length > 0) capabilities.resources = {};
    if (Object.keys(prompts).length > 0) capabilities.prompts = {};
    const server = new sdk.Server(
      { name, version: '0.0.0-fake', title: `${name} (modeltape FakeMcpServer)` },
      { capabilities, ...(instructions === undefined ? {} : { instructions }) },
    );
    const { types } = sdk;
    // A JSON-RPC error with this code and message (an McpError would send its message with its
    // own "MCP error …:" prefix, which the client then prefixes again).
    const fail: Fail = (code, message, data) => {
      throw Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
    };
    server.setRequestHandler(types.ListToolsRequestSchema, () =>
      this.#answer({ method: 'tools/list' }, async () => ({
        tools: [...this.#tools].map(([toolName, tool]) => ({
          name: toolName,
          ...(tool.title === undefined ? {} : { title: tool.title }),
          ...(tool.description === undefined ? {} : { description: tool.description }),
          inputSchema: tool.inputSchema ?? { type: 'object' },
          ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
          ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
        })),
      })),
    );
    server.setRequestHandler(types.CallToolRequestSchema, (request) => {
      const args = request.params.arguments ?? {};
      return this.#answer({ method: 'tools/call', tool: request.params.name, arguments: args }, (call) =>
        this.#callTool(request.params.name, args, call, fail),
      );
    });
    // The SDK's server refuses a handler for a capability it does not declare.
    if (capabilities.resources !== undefined) this.#serveResources(server, sdk, resources, fail);
    if (capabilities.prompts !== undefined) this.#servePrompts(server, sdk, prompts, fail);
    return server as McpSdkServer;
  }

  #serveResources(server: InstanceType<McpSdk['Server']>, { types }: McpSdk, resources: Record<string, FakeMcpResource>, fail: Fail): void {
    server.setRequestHandler(types.ListResourcesRequestSchema, () =>
      this.#answer({ method: 'resources/list' }, async () => ({
        resources: Object.entries(resources).map(([uri, resource]) => ({
          uri,
          name: resource.name ?? uri,
          ...(resource.title === undefined ? {} : { title: resource.title }),
          ...(resource.description === undefined ? {} : { description: resource.description }),
          ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }),
        })),
      })),
    );
    server.setRequestHandler(types.ReadResourceRequestSchema, (request) => {
      const uri = request.params.uri;
      return this.#answer({ method: 'resources/read', uri }, async () => {
        const resource = Object.hasOwn(resources, uri) ? resources[uri] : undefined;
        if (resource === undefined) return fail(RESOURCE_NOT_FOUND, 'Resource not found', { uri });
        const body = resource.blob !== undefined ? { blob: resource.blob } : { text: resource.text ?? '' };
        return { contents: [{ uri, ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }), ...body }] };
      });
    });
  }

  #servePrompts(server: InstanceType<McpSdk['Server']>, { types }: McpSdk, prompts: Record<string, FakeMcpPrompt>, fail: Fail): void {
    server.setRequestHandler(types.ListPromptsRequestSchema, () =>
      this.#answer({ method: 'prompts/list' }, async () => ({
        prompts: Object.entries(prompts).map(([promptName, prompt]) => ({
          name: promptName,
          ...(prompt.description === undefined ? {} : { description: prompt.description }),
          ...(prompt.arguments === undefined ? {} : { arguments: prompt.arguments }),
        })),
      })),
    );
    server.setRequestHandler(types.GetPromptRequestSchema, (request) => {
      const promptName = request.params.name;
      const args = request.params.arguments ?? {};
      return this.#answer({ method: 'prompts/get', prompt: promptName, arguments: args }, async () => {
        const prompt = Object.hasOwn(prompts, promptName) ? prompts[promptName] : undefined;
        if (prompt === undefined) return fail(INVALID_PARAMS, `Prompt ${promptName} not found`);
        const missing = (prompt.arguments ?? []).find((argument) => argument.required === true && args[argument.name] === undefined);
        if (missing !== undefined) return fail(INVALID_PARAMS, `Invalid arguments for prompt ${promptName}: missing required argument "${missing.name}"`);
        const messages = typeof prompt.messages === 'function' ? prompt.messages(args) : prompt.messages;
        return { ...(prompt.description === undefined ? {} : { description: prompt.description }), messages };
      });
    });
  }

  // Records the request, answers it, and records what it answered; every result is marked fake.
  async #answer(asked: Omit<FakeMcpCall, 'index'>, produce: (call: FakeMcpCall) => Promise<Record<string, unknown>>): Promise<never> {
    const call: FakeMcpCall = { index: this.#calls.length, ...asked };
    this.#calls.push(call);
    try {
      const result = { ...(await produce(call)), _meta: { [FAKE_MCP_META]: true } };
      call.result = result;
      return result as never;
    } catch (error) {
      const code = isRecord(error) && typeof error.code === 'number' ? error.code : -32603;
      call.error = { code, message: error instanceof Error ? error.message : String(error) };
      throw error;
    }
  }

  // A tool call as the SDK's McpServer answers it: an unknown tool, arguments its schema refuses,
  // or a structured result its output schema refuses are tool errors (`isError`) that say so.
  async #callTool(name: string, args: Record<string, unknown>, call: FakeMcpCall, fail: Fail): Promise<Record<string, unknown>> {
    const tool = this.#tools.get(name);
    if (tool === undefined) return toolError(`MCP error ${INVALID_PARAMS}: Tool ${name} not found`);
    if (tool.inputSchema !== undefined) {
      const mismatches = this.#schemas.check(tool.inputSchema, args);
      if (mismatches.length > 0) {
        return toolError(`MCP error ${INVALID_PARAMS}: Input validation error: Invalid arguments for tool ${name}:\n${describeMismatches(mismatches)}`);
      }
    }
    const nth = this.#toolCalls.get(name) ?? 0;
    this.#toolCalls.set(name, nth + 1);
    const scripted = nth < (tool.answers?.length ?? 0) ? tool.answers![nth] : typeof tool.answer === 'function' ? await tool.answer(args, call) : tool.answer;
    const answer = scripted ?? this.#generatedAnswer(name, tool, nth);
    if (answer.delayMs !== undefined && answer.delayMs > 0) await this.#sleep(answer.delayMs);
    if (answer.error !== undefined) return fail(answer.error.code, answer.error.message, answer.error.data);
    const content = answer.content ?? (answer.text !== undefined ? [{ type: 'text', text: answer.text }] : []);
    const result: Record<string, unknown> = { content };
    if (answer.structuredContent !== undefined) result.structuredContent = answer.structuredContent;
    if (answer.isError === true) return { ...result, isError: true };
    if (tool.outputSchema !== undefined) {
      if (answer.structuredContent === undefined) {
        return toolError(`MCP error ${INVALID_PARAMS}: Output validation error: Tool ${name} has an output schema but no structured content was provided`);
      }
      const mismatches = this.#schemas.check(tool.outputSchema, answer.structuredContent);
      if (mismatches.length > 0) {
        return toolError(
          `MCP error ${INVALID_PARAMS}: Output validation error: Invalid structured content for tool ${name}:\n${describeMismatches(mismatches)}`,
        );
      }
    }
    return result;
  }

  // An unscripted call: a value of the output schema (as text too, as the spec asks of a tool
  // with structured content), or a text that says whose it is.
  #generatedAnswer(name: string, tool: FakeMcpTool, nth: number): FakeMcpAnswer {
    if (tool.outputSchema === undefined) return { text: `fake result ${nth + 1} of ${name} (modeltape FakeMcpServer)` };
    const structured = generateValue(tool.outputSchema as JsonSchema, { seed: (this.#options.seed ?? 0) + nth, cache: this.#generated }) as Record<
      string,
      unknown
    >;
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  }
}

type Fail = (code: number, message: string, data?: unknown) => never;

// A request's JSON body, or undefined when it is none.
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function toolError(message: string): Record<string, unknown> {
  return { content: [{ type: 'text', text: message }], isError: true };
}
