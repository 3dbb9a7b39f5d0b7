// The one file that loads @modelcontextprotocol/sdk, an optional peer: only a FakeMcpServer that
// is connected or served loads it, so modeltape/fake-provider imports without it.
import { ModeltapeError } from '../../core/internal.js';

/**
 * A JSON-RPC message transport as the SDK's `Client.connect` takes it (the SDK's `Transport`,
 * written out so that modeltape's types do not need the SDK installed).
 */
export interface McpTransport {
  start(): Promise<void>;
  send(message: never, options?: never): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: unknown, extra?: unknown) => void) | undefined;
  sessionId?: string | undefined;
}

/** The parts of the SDK a FakeMcpServer uses. */
export interface McpSdk {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
  InMemoryTransport: typeof import('@modelcontextprotocol/sdk/inMemory.js').InMemoryTransport;
  StdioServerTransport: typeof import('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport;
  StreamableHTTPServerTransport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
}

/** A server of the SDK, as the fake builds one per connection. */
export type McpSdkServer = InstanceType<McpSdk['Server']>;

let loading: Promise<McpSdk> | undefined;

/** Loads the SDK once; a clear error when it is not installed. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= (async () => {
    try {
      const [server, types, inMemory, stdio, streamableHttp] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/index.js'),
        import('@modelcontextprotocol/sdk/types.js'),
        import('@modelcontextprotocol/sdk/inMemory.js'),
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      ]);
      return {
        Server: server.Server,
        types,
        InMemoryTransport: inMemory.InMemoryTransport,
        StdioServerTransport: stdio.StdioServerTransport,
        StreamableHTTPServerTransport: streamableHttp.StreamableHTTPServerTransport,
      };
    } catch (error) {
      loading = undefined;
      throw new ModeltapeError(
        'mcp_sdk_missing',
        'FakeMcpServer speaks MCP through the official SDK, which is not installed: npm install --save-dev @modelcontextprotocol/sdk (1.x)',
        { cause: error },
      );
    }
  })();
  return loading;
}
