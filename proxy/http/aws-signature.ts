// The one file that signs requests for AWS: Bedrock Runtime's, in record mode. A client pointed
// at the proxy signed for the proxy's host (and, in a replay-ready setup, with modeltape's
// placeholder credentials); AWS would refuse that signature, so the proxy signs each forwarded
// request again for the real endpoint with the credentials of the standard AWS chain
// (environment, shared profile, session token, SSO, …) of the process it runs in.
// @smithy/signature-v4 is the AWS SDK's own signer; the chain (@aws-sdk/credential-provider-node,
// an optional peer that every AWS SDK client brings) is loaded only when a request is signed.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { ModeltapeError } from '../../core/internal.js';
import type { Upstream } from '../core/upstream-table.js';

/**
 * Headers that change on every call, or carry the client's credential: the client's signature is
 * dropped and these are made again (the date, the token, the content hash) or left out.
 */
const SIGNATURE_HEADERS = new Set(['authorization', 'x-amz-date', 'x-amz-security-token', 'x-amz-content-sha256', 'host', ':authority']);

/** An AWS credential, as the chain resolves it. Never logged, never stored. */
interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

type CredentialProvider = () => Promise<AwsCredentials>;

/** Where a signed request goes, and what the client's own signature said of its scope. */
export interface SigningInput {
  method: string;
  /** Path and query on the upstream, as forwarded (`/model/anthropic.claude-…%3A0/converse`). */
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * Signs requests for AWS upstreams with SigV4. One per proxy: the credential chain is resolved
 * once and refreshed when its credentials expire (the chain's own memoization).
 */
export class AwsSigner {
  #credentials: CredentialProvider | undefined;
  #env: Readonly<Record<string, string | undefined>>;

  /** `credentials` replaces the standard chain (tests, or a caller with its own). */
  constructor(env: Readonly<Record<string, string | undefined>> = process.env, credentials?: CredentialProvider) {
    this.#env = env;
    this.#credentials = credentials;
  }

  /**
   * The headers to send upstream: the client's without its signature, signed for the upstream's
   * host and region (from the endpoint's host, else from the client's own credential scope, else
   * AWS_REGION) as service `bedrock`. Throws `aws_credentials_unavailable` when the chain has none.
   */
  async sign(upstream: Upstream, request: SigningInput): Promise<Record<string, string | string[]>> {
    const url = new URL(upstream.baseUrl);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      const lower = name.toLowerCase();
      if (SIGNATURE_HEADERS.has(lower) || lower.startsWith(':')) continue;
      headers[lower] = Array.isArray(value) ? value.join(', ') : value;
    }
    headers.host = url.host;
    const scope = clientScope(request.headers.authorization);
    const signer = new SignatureV4({
      service: scope?.service ?? 'bedrock',
      region: regionOfHost(url.hostname) ?? scope?.region ?? this.#regionFromEnvironment(),
      credentials: this.#provider(),
      sha256: NodeSha256,
      // Non-S3 services sign the path escaped once more (as the AWS SDK's clients do).
      uriEscapePath: true,
    });
    const questionMark = request.path.indexOf('?');
    const pathOnly = questionMark < 0 ? request.path : request.path.slice(0, questionMark);
    const query: Record<string, string | string[]> = {};
    if (questionMark >= 0) {
      for (const [name, value] of new URLSearchParams(request.path.slice(questionMark + 1))) {
        const seen = query[name];
        query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
      }
    }
    let signed: { headers: Record<string, string> };
    try {
      signed = await signer.sign({
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port === '' ? {} : { port: Number(url.port) }),
        path: pathOnly,
        query,
        headers,
        body: request.body,
      });
    } catch (error) {
      if (ModeltapeError.isInstance(error)) throw error;
      throw new ModeltapeError(
        'aws_credentials_unavailable',
        `could not sign the request for ${upstream.name} (${upstream.baseUrl}): ${(error as Error).message}. Recording Bedrock needs AWS credentials in the environment modeltape runs in: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN for temporary ones), or AWS_PROFILE naming a profile in ~/.aws.`,
        { cause: error },
      );
    }
    return signed.headers;
  }

  #regionFromEnvironment(): string {
    return this.#env.AWS_REGION || this.#env.AWS_DEFAULT_REGION || 'us-east-1';
  }

  #provider(): CredentialProvider {
    this.#credentials ??= chainProvider(this.#env);
    return this.#credentials;
  }
}

/**
 * The AWS SDK's default chain, loaded on first use, resolved once and refreshed on expiry. The
 * proxy's environment (which a caller may give, as `modeltape run` does) comes first, as the
 * chain's own first link reads it: keys there, then the profile it names; the rest of the chain
 * (shared files, SSO, web identity, the instance role) as the SDK reads them.
 */
function chainProvider(env: Readonly<Record<string, string | undefined>>): CredentialProvider {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (accessKeyId && secretAccessKey && !env.AWS_PROFILE) {
    const sessionToken = env.AWS_SESSION_TOKEN || env.AWS_SECURITY_TOKEN;
    const credentials: AwsCredentials = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
    return async () => credentials;
  }
  const profile = env.AWS_PROFILE || undefined;
  let chain: Promise<CredentialProvider> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then(
      (module) => module.defaultProvider(profile === undefined ? {} : { profile }) as CredentialProvider,
      (error: unknown) => {
        throw new ModeltapeError(
          'aws_credentials_unavailable',
          'recording Bedrock needs the AWS credential chain, @aws-sdk/credential-provider-node, which every AWS SDK client installs; install it (npm i -D @aws-sdk/credential-provider-node) next to modeltape.',
          { cause: error },
        );
      },
    );
    return (await chain)();
  };
}

/** The region of an AWS service endpoint's host (`bedrock-runtime.eu-west-3.amazonaws.com`), or undefined. */
export function regionOfHost(hostname: string): string | undefined {
  return /^[a-z0-9-]+\.([a-z]{2}(?:-[a-z0-9]+)+-\d+)\.amazonaws\.com(?:\.cn)?$/.exec(hostname.toLowerCase())?.[1];
}

/** The region and service of the client's own signature (`Credential=ID/DATE/REGION/SERVICE/aws4_request`). */
export function clientScope(authorization: string | string[] | undefined): { region: string; service: string } | undefined {
  const text = Array.isArray(authorization) ? authorization[0] : authorization;
  const match = text === undefined ? null : /Credential=[^/,\s]+\/\d{8}\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request/.exec(text);
  return match === null ? undefined : { region: match[1]!, service: match[2]! };
}

// sha256 and HMAC-sha256 as the signer's checksum interface asks, from node:crypto.
class NodeSha256 {
  #hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.#hash.digest();
  }
  reset(): void {
    throw new Error('not used by the signer');
  }
}

function toBuffer(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}
