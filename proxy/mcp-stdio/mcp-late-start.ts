// Auto mode starts a stdio MCP server at the first miss, behind a session the tape answered until
// then. The server must stand where the recorded one stood: it is shown the handshake the client
// sent (initialize, notifications/initialized) and, when it asks the client what the recorded
// server asked (the filesystem server asks roots/list after initialized), the client's answer
// from the replayed part, under the id the new server gave its request. What missed reaches it
// only then, so it is answered by a server that knows what the recorded one knew.
import { isRecord } from '../../core/internal.js';
import { isJsonRpcMessage, isJsonRpcRequest, isJsonRpcResponse, jsonRpcIdOf, type JsonRpcId } from '../../providers/internal.js';

// How long a late server gets, once it answered initialize, to ask what the recorded server asked.
const WARM_UP_MS = 3000;
// The id of the ping that tells the server has read the answers it was given (a string, so no
// client's numbering meets it).
const PING_ID = 'modeltape-late-start';

type Message = Record<string, unknown>;

/** What the bridge does with a client's answer to a request of the server. */
export type ClientAnswerRoute =
  /** Kept for the server auto mode starts later (or given to it now): not written to it as sent. */
  | 'kept'
  /** An answer to a request of the live server: it goes to the server, whatever the tape holds. */
  | 'to-server'
  /** Not an answer to a request of a server. */
  | undefined;

/** The state of a late start: what the replayed part showed, and the warm-up of the server started behind it. */
export class LateStart {
  readonly #handshake: string[] = [];
  // Requests the recorded server made of the client, as the tape gave them, by id: their method.
  readonly #asked = new Map<JsonRpcId, string>();
  // The client's answers to those, in order, not yet given to a server.
  readonly #answers: Array<{ method: string; message: Message }> = [];
  // The live server's requests of those methods, waiting for the client's answer.
  readonly #waiting: Array<{ method: string; id: JsonRpcId }> = [];
  // Requests of the live server passed on to the client: its answers go back to the server.
  readonly #live = new Set<JsonRpcId>();
  // What the recorded server asked that the live one has not asked yet.
  #expected: string[] = [];
  #initializeId: JsonRpcId | undefined;
  // The handshake after initialize: written once the server answered it, as a client waits to.
  #afterInitialize: string[] = [];
  #holding = false;
  #held: string[] = [];
  #timer: NodeJS.Timeout | undefined;
  #write: (line: string) => void = () => undefined;
  #started = false;
  #pinged = false;
  /** Why the server's warm-up was not complete, once it is known not to be: its answers are then suspect. */
  incomplete: string | undefined;

  /** A client message the tape answered before any server ran. Only the handshake is kept. */
  replayedClientLine(line: string, message: unknown): void {
    if (this.#started || !isJsonRpcMessage(message)) return;
    if (message.method === 'initialize' || message.method === 'notifications/initialized') this.#handshake.push(line);
  }

  /** A line the tape gave the client before any server ran: a request of the recorded server is remembered. */
  replayedServerLine(line: string): void {
    if (this.#started) return;
    const message = parse(line);
    if (isJsonRpcRequest(message)) this.#asked.set(jsonRpcIdOf(message)!, (message as Message).method as string);
  }

  /** Routes a client's message that answers a request of a server (see {@link ClientAnswerRoute}). */
  clientAnswer(message: unknown): ClientAnswerRoute {
    if (!isJsonRpcResponse(message)) return undefined;
    const id = jsonRpcIdOf(message)!;
    if (this.#started && this.#live.delete(id)) return 'to-server';
    const method = this.#asked.get(id);
    if (method === undefined) return undefined;
    this.#asked.delete(id);
    const waiting = this.#waiting.findIndex((request) => request.method === method);
    if (waiting >= 0) {
      this.#give(message as Message, this.#waiting.splice(waiting, 1)[0]!.id);
      this.#check();
    } else this.#answers.push({ method, message: message as Message });
    return 'kept';
  }

  /**
   * Starts the warm-up of a server just started: writes it initialize and, once it answered, the
   * rest of the handshake. Until then, and until it has asked what the recorded server asked and
   * has the client's answers, what is sent to it is held.
   */
  start(write: (line: string) => void): void {
    this.#started = true;
    this.#write = write;
    if (this.#handshake.length === 0) return;
    this.#holding = true;
    this.#expected = [...this.#asked.values(), ...this.#answers.map((answer) => answer.method)];
    const at = this.#handshake.findIndex((line) => (parse(line) as Message | undefined)?.method === 'initialize');
    this.#initializeId = at < 0 ? undefined : jsonRpcIdOf(parse(this.#handshake[at]!));
    // The SDKs' servers read capabilities off initialize as it is answered: an initialized read in
    // the same chunk is handled first, before the server knows the client has roots.
    this.#afterInitialize = this.#handshake.slice(at + 1);
    for (const line of this.#handshake.slice(0, at + 1)) write(line);
    if (this.#initializeId === undefined) this.#initialized();
  }

  /** A line for the server: held while it warms up. */
  send(line: string): void {
    if (this.#holding) this.#held.push(line);
    else this.#write(line);
  }

  /** A message of the server's: true when it was the warm-up's (the client never sees it). */
  serverMessage(message: unknown): boolean {
    if (isJsonRpcResponse(message)) {
      const id = jsonRpcIdOf(message);
      if (id === PING_ID) {
        this.#release();
        return true;
      }
      // The replayed initialize's answer: the client had its answer from the tape.
      if (id === undefined || id !== this.#initializeId) return false;
      this.#initializeId = undefined;
      this.#initialized();
      return true;
    }
    if (!isJsonRpcRequest(message)) return false;
    const id = jsonRpcIdOf(message)!;
    const method = (message as Message).method as string;
    const at = this.#holding ? this.#expected.indexOf(method) : -1;
    if (at < 0) {
      this.#live.add(id);
      return false;
    }
    this.#expected.splice(at, 1);
    const answer = this.#answers.findIndex((kept) => kept.method === method);
    if (answer >= 0) this.#give(this.#answers.splice(answer, 1)[0]!.message, id);
    else this.#waiting.push({ method, id });
    this.#check();
    return true;
  }

  // The server answered initialize: the rest of the handshake, then what it must ask, if anything.
  #initialized(): void {
    for (const line of this.#afterInitialize.splice(0)) this.#write(line);
    if (this.#expected.length === 0) {
      this.#release();
      return;
    }
    this.#timer = setTimeout(() => this.#giveUp(), WARM_UP_MS);
    this.#check();
  }

  /** Stops the warm-up's clock (the bridge is done). */
  dispose(): void {
    clearTimeout(this.#timer);
  }

  #give(answer: Message, id: JsonRpcId): void {
    this.#write(JSON.stringify({ ...answer, id }));
  }

  // All asked and answered: a ping, whose answer says the server has read its answers, ends it.
  #check(): void {
    if (!this.#holding || this.#pinged || this.#initializeId !== undefined || this.#expected.length > 0 || this.#waiting.length > 0) return;
    this.#pinged = true;
    this.#write(JSON.stringify({ jsonrpc: '2.0', id: PING_ID, method: 'ping' }));
  }

  #giveUp(): void {
    const missing = [
      ...this.#expected.map((method) => `it never asked ${method}, which the recorded server asked and the client answered in the replayed part`),
      ...this.#waiting.map((request) => `the client never answered ${request.method} for it`),
    ];
    this.incomplete = missing.length > 0 ? missing.join('; ') : 'it did not answer a ping';
    this.#release();
  }

  #release(): void {
    if (!this.#holding) return;
    clearTimeout(this.#timer);
    this.#holding = false;
    for (const line of this.#held.splice(0)) this.#write(line);
  }
}

/** An answer that is an error: a JSON-RPC error, or a tool's result with `isError`. */
export function isErrorAnswer(message: unknown): boolean {
  if (!isJsonRpcResponse(message)) return false;
  const response = message as Message;
  return response.error !== undefined || (isRecord(response.result) && response.result.isError === true);
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
