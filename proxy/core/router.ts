import { providerPath } from '../../providers/internal.js';
import { shownBaseUrl, type Upstream } from './upstream-table.js';

/** Where a proxied request goes. */
export interface Route {
  upstream: Upstream;
  /** The path on the provider, as keyed and recorded (e.g. `/v1/messages`). */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  /** What is forwarded: the upstream's base path, the path, and the query. */
  forwardPath: string;
}

/**
 * Routes `/<upstream>/<rest>?query` to an upstream. Returns the upstream name that was asked for
 * when it is not configured, so the caller can say which names are.
 *
 * Anthropic's two clients build different paths from one `ANTHROPIC_BASE_URL`:
 * `@anthropic-ai/sdk` appends `/v1/messages`, `@ai-sdk/anthropic` appends `/messages`.
 * For an Anthropic upstream a path without `/v1` gets it, so both key on the same provider path
 * and one recording serves both clients.
 *
 * A request to `/openai/v1/<rest>` whose query holds `api-version` is Azure OpenAI's (the
 * `AzureOpenAI` client adds it to every request, and OpenAI's API takes none): it goes to the
 * `azure` upstream as `/openai/<rest>`, the path an Azure resource serves it at.
 */
export function routeRequest(url: string, table: ReadonlyMap<string, Upstream>): Route | { unknown: string } | { refused: string; upstream: Upstream } {
  // An absolute URL (`GET http://host/…`) asks for an open forward proxy; this is not one.
  if (!url.startsWith('/')) return { unknown: url };
  const questionMark = url.indexOf('?');
  const pathname = questionMark < 0 ? url : url.slice(0, questionMark);
  const query = questionMark < 0 ? '' : url.slice(questionMark + 1);
  const slash = pathname.indexOf('/', 1);
  const name = slash < 0 ? pathname.slice(1) : pathname.slice(1, slash);
  let upstream = table.get(name);
  if (upstream === undefined) return { unknown: name };
  let rest = slash < 0 ? '/' : pathname.slice(slash);
  const azure = table.get('azure');
  if (name === 'openai' && azure !== undefined && rest.startsWith('/v1/') && new URLSearchParams(query).has('api-version')) {
    // `new AzureOpenAI()` under `modeltape run` reads OPENAI_BASE_URL before AZURE_OPENAI_ENDPOINT
    // and sends `/openai/v1/deployments/{d}/chat/completions?api-version=…` here. OpenAI's own
    // API takes no `api-version`; every Azure client sends it: such a request is Azure's, at its
    // path on the resource, `/openai/deployments/{d}/…`.
    upstream = azure;
    rest = `/openai${rest.slice('/v1'.length)}`;
  }
  const escape = leavesBasePath(rest);
  if (escape !== undefined) {
    return {
      upstream,
      refused: `${escape}, which could reach past ${shownBaseUrl(upstream)} (the base of upstream "${upstream.name}") once the upstream resolves it. Send the path as the provider's API names it, without dot segments or backslashes.`,
    };
  }
  const path = providerPath(upstream.provider, rest);
  // An MCP endpoint is its URL itself (`…/mcp`): the client's `/<name>` reaches it without a slash added.
  const forwarded = upstream.provider === 'mcp' && path === '/' && upstream.basePath !== '' ? '' : path;
  const forwardPath = `${upstream.basePath}${forwarded}${query === '' ? '' : `?${query}`}`;
  return { upstream, path, query, forwardPath };
}

/**
 * Why a path could leave the upstream's base path, or undefined: a `.` or `..` segment (also
 * percent-encoded, `%2e%2e`, or behind an encoded slash), a backslash (some servers read it as
 * `/`), or a NUL.
 */
function leavesBasePath(path: string): string | undefined {
  for (const segment of path.split('/')) {
    // Decoded as often as a chain of servers might (`%252e%252e` is `..` to an upstream behind a
    // gateway that decodes once more).
    for (const decoded of decodings(segment)) {
      const encoded = decoded === segment ? '' : ' once decoded';
      if (decoded.includes('\\')) return `the path holds a backslash${encoded} (${JSON.stringify(segment)})`;
      if (decoded.includes('\u0000')) return `the path holds a NUL byte${encoded}`;
      // `..;x` is `..` to servers that strip path parameters (Tomcat, Spring).
      if (decoded.split('/').some((part) => /^\.\.?(?:;.*)?$/.test(part))) return `the path holds the dot segment ${JSON.stringify(segment)}${encoded}`;
    }
  }
  return undefined;
}

// A segment and what it decodes to, as often as it still decodes (up to 8 times). Overlong UTF-8
// (`%c0%ae` for `.`) is read as the character lenient decoders make of it. A malformed escape
// stops decoding: it is forwarded as it is, and the upstream answers it.
function decodings(segment: string): string[] {
  const found = [segment];
  let decoded = segment;
  for (let round = 0; round < 8 && decoded.includes('%'); round++) {
    const lenient = decoded
      .replace(/%c0%ae|%e0%80%ae/gi, '.')
      .replace(/%c0%af|%e0%80%af/gi, '/')
      .replace(/%c1%9c/gi, '\\');
    try {
      decoded = decodeURIComponent(lenient);
    } catch {
      if (lenient !== decoded) found.push(lenient);
      break;
    }
    found.push(decoded);
  }
  return found;
}
