import { domainToASCII } from 'node:url';

/**
 * Whether a host name or address stays on this machine: `localhost` (and `*.localhost`), the
 * IPv4 loopback range 127.0.0.0/8, `::1`, their IPv4-mapped forms, and the unspecified addresses
 * `0.0.0.0` and `::`, which a connect reaches locally.
 */
export function isLoopbackHost(host: string): boolean {
  let name = host.toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '::1' || name === '::' || name === '0.0.0.0' || name === '0:0:0:0:0:0:0:1') return true;
  const v4 = name.startsWith('::ffff:') ? name.slice(7) : name;
  // ::ffff:7f00:1 is how the URL parser writes ::ffff:127.0.0.1.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(name);
}

/**
 * Matches a connection target against a list of hosts: `host` stands for its ports 80 and 443,
 * `host:port` for that port only, `*.domain` every name under the domain on any port, and a `*`
 * label inside a name (`bedrock-runtime.*.amazonaws.com`) any one label there, on any port.
 * Returns the entry that matched.
 */
export function hostMatcher(hosts: Iterable<string>): HostMatcher {
  // A list made once (providerHosts) is matched by the matcher made for it.
  const known = typeof hosts === 'object' && Object.isFrozen(hosts) ? matchersByList.get(hosts) : undefined;
  if (known !== undefined) return known;
  const entries = new Set([...hosts].map((host) => host.trim().toLowerCase()).filter((host) => host !== ''));
  // Every session of a suite guards the same hosts: the matcher is built once per list.
  const id = [...entries].join('\n');
  let matcher = matchers.get(id);
  if (matcher === undefined) {
    matcher = buildHostMatcher(entries);
    if (matchers.size >= MATCHERS_KEPT) matchers.delete(matchers.keys().next().value!);
    matchers.set(id, matcher);
  }
  if (typeof hosts === 'object' && Object.isFrozen(hosts)) matchersByList.set(hosts, matcher);
  return matcher;
}

/** Which entry a connection target matches, if any (see {@link hostMatcher}). */
export type HostMatcher = (host: string, port: number | string | undefined) => string | undefined;

const matchers = new Map<string, HostMatcher>();
const matchersByList = new WeakMap<object, HostMatcher>();
const MATCHERS_KEPT = 32;

function buildHostMatcher(entries: ReadonlySet<string>): HostMatcher {
  // Every spelling of loopback reaches the same server: an entry on loopback (ollama's
  // 127.0.0.1:11434, a local upstream) matches `localhost`, `[::1]`, `0.0.0.0`… on its port.
  const loopbackPorts = new Map<string, string>();
  for (const entry of entries) {
    const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry);
    if (match && isLoopbackHost(match[1]!)) loopbackPorts.set(match[2] ?? '', entry);
  }
  // `*.openai.azure.com`: every name under that domain (Azure gives each resource its own), on any port.
  const suffixes = [...entries].filter((entry) => entry.startsWith('*.')).map((entry) => [entry, entry.slice(1)] as const);
  // `bedrock-runtime.*.amazonaws.com`: every region's endpoint (a `*` stands for one label).
  const labels = [...entries]
    .filter((entry) => !entry.startsWith('*.') && /^[a-z0-9.*-]+$/.test(entry) && entry.includes('*'))
    .map((entry) => [entry, new RegExp(`^${entry.replace(/\./g, '\\.').replace(/\*/g, '[a-z0-9-]+')}$`)] as const);
  return (host, port) => {
    const name = canonicalHost(host);
    const portText = port === undefined || port === '' ? '' : String(port);
    for (const [entry, suffix] of suffixes) if (name.endsWith(suffix)) return entry;
    for (const [entry, pattern] of labels) if (pattern.test(name)) return entry;
    if (loopbackPorts.size > 0 && isLoopbackHost(name)) {
      const entry = loopbackPorts.get(portText) ?? (portText === '' || portText === '443' || portText === '80' ? loopbackPorts.get('') : undefined);
      if (entry !== undefined) return entry;
    }
    const withPort = `${name.includes(':') ? `[${name}]` : name}:${portText}`;
    if (portText !== '' && entries.has(withPort)) return withPort;
    if ((portText === '' || portText === '443' || portText === '80') && entries.has(name)) return name;
    return undefined;
  };
}

/**
 * A host as DNS will look it up: lowercase, without brackets or a trailing dot, and in ASCII
 * (`ａｐｉ.openai.com` and names with a soft hyphen map to `api.openai.com`, as the lookup does).
 */
export function canonicalHost(host: string): string {
  let name = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (!/^[\x21-\x7e]*$/.test(name)) name = domainToASCII(name) || name;
  return name;
}

/**
 * `host:port` as `CONNECT` and the Host header write it (IPv6 in brackets), with the host in
 * its canonical form; undefined for anything else (userinfo, a path, a port past 65535).
 */
export function parseAuthority(text: string, defaultPort = 443): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:@/\s]+)(?::(\d{1,5}))?$/.exec(text.trim());
  if (match === null) return undefined;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  return port > 65535 ? undefined : { host: canonicalHost(match[1]!), port };
}
