import { isRecord } from '../../core/internal.js';
import {
  readClientEvent,
  readRealtimeTurn,
  realtimeErrorEvent,
  transientFailure,
  type AskedTurn,
  type RealtimeError,
  type RealtimeTurnRequest,
} from '../../providers/internal.js';
import type { MessageSocket } from '../../proxy/internal.js';
import type { Answer } from '../answer.js';
import { fakeModel, type IdKind } from '../surface.js';
import type { TurnDecision } from '../turn-decision.js';
import { promptTokens } from '../usage.js';
import { endedResponse, responseEvents, type RealtimeEvent, type RealtimeResponsePlan } from './response-events.js';

/** A client event as the fake keeps it among its calls (method `WS`): its status says how it was answered. */
export interface RealtimeCall {
  index: number;
  method: string;
  path: string;
  /** 200 answered, 400 refused with an `error` event as the API refuses it, 422 the fake's own error. */
  status: number;
}

/** What a session needs of the FakeProvider that serves it: its ids, clock, waits, calls, script and problems. */
export interface RealtimeHost {
  newId(kind: IdKind): string;
  /** Seconds since the epoch, from the fake's clock. */
  created(): number;
  sleep(milliseconds: number): Promise<void>;
  /** Keeps a client event among the fake's calls. */
  call(path: string, body: unknown): RealtimeCall;
  /** Keeps the turn among what the fake was asked and decides its answer, as every turn is decided. */
  decide(turn: AskedTurn, call: RealtimeCall): TurnDecision;
  /** Keeps one of the fake's own errors among its problems; the message as kept (masked). */
  problem(message: string): string;
}

type Item = Record<string, unknown>;

/** A response between its `response.created` and its `response.done`. */
interface ActiveResponse {
  plan: RealtimeResponsePlan;
  /** The items whose `response.output_item.done` went out. */
  finished: Item[];
  /** Its `response.done` went out (or the session closed): nothing more is sent for it. */
  settled: boolean;
}

const PCM_24K = { type: 'audio/pcm', rate: 24000 };
// Fields of the session the server keeps: a session.update does not change them.
const SERVER_OWNED = new Set(['type', 'object', 'id', 'expires_at', 'model']);
// The API refuses to commit less audio than this.
const MIN_COMMIT_MS = 100;

/**
 * One OpenAI Realtime session over WebSocket, answered by the fake's script: the GA event grammar
 * both ways, the session's configuration and conversation kept as the server keeps them, and what
 * the API refuses refused with its `error` event (the session stays open). A `response.create` is
 * a model turn: it is decided like any other turn (rules, then the queue; the script never repeats
 * its last answer) and answered as text or, when the output is audio, as an audio transcript.
 */
export class FakeRealtimeSession {
  readonly #host: RealtimeHost;
  readonly #socket: MessageSocket;
  readonly #model: string;
  readonly #path: string;
  readonly #conversationId: string;
  #session: Record<string, unknown>;
  #items: Item[] = [];
  #audio: Buffer[] = [];
  readonly #active = new Map<string, ActiveResponse>();
  #closed = false;

  /** `model` is the one the URL asks for; `path` the upgrade's, as calls() shows it. */
  constructor(host: RealtimeHost, socket: MessageSocket, model: string, path: string) {
    this.#host = host;
    this.#socket = socket;
    this.#model = model;
    this.#path = path;
    this.#session = {
      type: 'realtime',
      object: 'realtime.session',
      id: host.newId('sess'),
      model: fakeModel(model),
      output_modalities: ['audio'],
      instructions: '',
      tools: [],
      tool_choice: 'auto',
      max_output_tokens: 'inf',
      tracing: null,
      prompt: null,
      expires_at: host.created() + 3600,
      // The fake hears no speech: no turn detection, so a client commits its audio and asks for a response itself.
      audio: { input: { format: PCM_24K, turn_detection: null }, output: { format: PCM_24K, voice: 'alloy', speed: 1 } },
    };
    this.#conversationId = host.newId('conv');
  }

  /** Sends `session.created` and answers the client's events from then on. */
  open(): void {
    this.#send({ type: 'session.created', session: this.#session });
    this.#socket.onMessage((data, binary) => this.#receive(data, binary));
    this.#socket.onError(() => undefined);
    this.#socket.onClose(() => {
      this.#closed = true;
      for (const active of this.#active.values()) active.settled = true;
      this.#active.clear();
    });
  }

  #receive(data: Buffer, binary: boolean): void {
    const read = binary
      ? {
          refusal: invalid('invalid_event', 'The client event must be a JSON text message, not a binary one.'),
          eventId: undefined,
          value: undefined,
        }
      : readClientEvent(data.toString('utf8'));
    const call = this.#host.call(this.#path, 'event' in read ? read.event : read.value);
    if ('refusal' in read) return this.#refuse(call, read.refusal, read.eventId);
    call.status = 200;
    const event = read.event;
    let refusal: RealtimeError | undefined;
    switch (event.type) {
      case 'session.update':
        refusal = this.#updateSession(event.session as Record<string, unknown>);
        break;
      case 'conversation.item.create':
        refusal = this.#createItem(event.item as Item, event.previous_item_id);
        break;
      case 'conversation.item.retrieve':
        refusal = this.#retrieveItem(String(event.item_id));
        break;
      case 'conversation.item.delete':
        refusal = this.#deleteItem(String(event.item_id));
        break;
      case 'conversation.item.truncate':
        refusal = this.#truncateItem(String(event.item_id), event.content_index, event.audio_end_ms);
        break;
      case 'input_audio_buffer.append':
        // Held until a commit; the API answers an append with nothing.
        this.#audio.push(Buffer.from(String(event.audio), 'base64'));
        break;
      case 'input_audio_buffer.commit':
        refusal = this.#commitAudio();
        break;
      case 'input_audio_buffer.clear':
        this.#audio = [];
        this.#send({ type: 'input_audio_buffer.cleared' });
        break;
      case 'output_audio_buffer.clear':
        refusal = invalid(
          'invalid_value',
          'output_audio_buffer.clear is for WebRTC and SIP sessions: a WebSocket session has no output audio buffer. Send response.cancel to stop a response.',
          'type',
        );
        break;
      case 'response.create':
        this.#createResponse(call, event.response, read.eventId);
        return;
      case 'response.cancel':
        refusal = this.#cancelResponse(event.response_id);
        break;
    }
    if (refusal !== undefined) this.#refuse(call, refusal, read.eventId);
  }

  #updateSession(update: Record<string, unknown>): RealtimeError | undefined {
    if (update.type !== 'realtime')
      return invalid('invalid_value', `Invalid value: '${String(update.type)}'. This is a realtime session: session.type must be 'realtime'.`, 'session.type');
    const next = { ...this.#session };
    for (const [name, value] of Object.entries(update)) {
      if (SERVER_OWNED.has(name)) continue;
      next[name] = name === 'audio' && isRecord(value) && isRecord(next.audio) ? mergeAudio(next.audio, value) : value;
    }
    this.#session = next;
    this.#send({ type: 'session.updated', session: next });
    return undefined;
  }

  #createItem(sent: Item, previousItemId: unknown): RealtimeError | undefined {
    const id = typeof sent.id === 'string' ? sent.id : this.#host.newId('item');
    if (this.#indexOf(id) >= 0) return invalid('invalid_value', `Error adding item: an item with id '${id}' already exists.`, 'item.id');
    let position = this.#items.length;
    if (previousItemId === 'root') position = 0;
    else if (typeof previousItemId === 'string') {
      const after = this.#indexOf(previousItemId);
      if (after < 0) return invalid('invalid_value', `Error adding item: the previous item with id '${previousItemId}' does not exist.`, 'previous_item_id');
      position = after + 1;
    }
    const { id: _id, type, status: _status, object: _object, ...rest } = sent;
    const item: Item = { id, type, status: 'completed', ...rest };
    this.#items.splice(position, 0, item);
    this.#announce(item, position === 0 ? null : String(this.#items[position - 1]!.id));
    return undefined;
  }

  #retrieveItem(id: string): RealtimeError | undefined {
    const item = this.#items[this.#indexOf(id)];
    if (item === undefined) return notFound('retrieve', 'retrieving', id);
    this.#send({ type: 'conversation.item.retrieved', item });
    return undefined;
  }

  #deleteItem(id: string): RealtimeError | undefined {
    const position = this.#indexOf(id);
    if (position < 0) return notFound('delete', 'deleting', id);
    this.#items.splice(position, 1);
    this.#send({ type: 'conversation.item.deleted', item_id: id });
    return undefined;
  }

  // The fake's answers carry no audio, so there is nothing to cut: a truncation is acknowledged.
  #truncateItem(id: string, contentIndex: unknown, audioEndMs: unknown): RealtimeError | undefined {
    const item = this.#items[this.#indexOf(id)];
    if (item === undefined) return notFound('truncate', 'truncating', id);
    if (item.type !== 'message' || item.role !== 'assistant')
      return invalid('invalid_value', `Error truncating item: item '${id}' is not an assistant message; only assistant audio can be truncated.`, 'item_id');
    this.#send({ type: 'conversation.item.truncated', item_id: id, content_index: contentIndex, audio_end_ms: audioEndMs });
    return undefined;
  }

  #commitAudio(): RealtimeError | undefined {
    const bytes = this.#audio.reduce((total, chunk) => total + chunk.length, 0);
    const milliseconds = bytes / bytesPerMillisecond(this.#session);
    if (milliseconds < MIN_COMMIT_MS)
      return {
        type: 'invalid_request_error',
        code: 'input_audio_buffer_commit_empty',
        message: `Error committing input audio buffer: buffer too small. Expected at least ${MIN_COMMIT_MS}ms of audio, but buffer only has ${milliseconds.toFixed(2)}ms of audio.`,
        param: null,
      };
    const audio = Buffer.concat(this.#audio).toString('base64');
    this.#audio = [];
    const id = this.#host.newId('item');
    const previous = this.#lastItemId();
    this.#send({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: id });
    const item: Item = { id, type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio', audio }] };
    this.#items.push(item);
    this.#announce(item, previous);
    return undefined;
  }

  /** `conversation.item.added` then `.done` for an item the client added, its audio left out as the API leaves it out. */
  #announce(item: Item, previous: string | null): void {
    const shown = withoutAudio(item);
    this.#send({ type: 'conversation.item.added', previous_item_id: previous, item: shown });
    this.#send({ type: 'conversation.item.done', previous_item_id: previous, item: shown });
  }

  #createResponse(call: RealtimeCall, asked: unknown, eventId: string | undefined): void {
    const params = isRecord(asked) ? asked : {};
    const inConversation = params.conversation !== 'none';
    const busy = inConversation ? [...this.#active.values()].find((active) => active.plan.inConversation) : undefined;
    if (busy !== undefined)
      return this.#refuse(
        call,
        {
          type: 'invalid_request_error',
          code: 'conversation_already_has_active_response',
          message: `Conversation already has an active response in progress: ${busy.plan.response.id}. Wait until the response is finished before creating a new one.`,
          param: null,
        },
        eventId,
      );
    const items = this.#inputOf(params);
    if ('refusal' in items) return this.#refuse(call, items.refusal, eventId);
    const request: RealtimeTurnRequest = { model: this.#model, session: this.#session, response: params, items: items.items };
    const turn = readRealtimeTurn(request, call.index);
    const decision = this.#host.decide(turn, call);
    if (decision.kind === 'refused') {
      const message = this.#host.problem(decision.message);
      return this.#refuse(call, { type: 'invalid_request_error', code: decision.type, message, param: null }, eventId, 422);
    }
    const modalities = Array.isArray(params.output_modalities) ? params.output_modalities : this.#session.output_modalities;
    const output = isRecord(this.#session.audio) && isRecord(this.#session.audio.output) ? this.#session.audio.output : {};
    const voice = isRecord(params.audio) && isRecord(params.audio.output) && params.audio.output.voice !== undefined ? params.audio.output.voice : output.voice;
    const plan: RealtimeResponsePlan = {
      turn,
      response: {
        id: this.#host.newId('resp'),
        ...(inConversation ? { conversation_id: this.#conversationId } : {}),
        output_modalities: modalities,
        max_output_tokens: params.max_output_tokens ?? this.#session.max_output_tokens ?? 'inf',
        audio: { output: { format: output.format ?? PCM_24K, voice: voice ?? 'alloy' } },
        metadata: params.metadata ?? null,
      },
      audio: Array.isArray(modalities) && modalities.includes('audio'),
      inConversation,
      previousItemId: this.#lastItemId(),
      finish: decision.kind === 'answer' ? decision.finish : undefined,
      chunking: decision.step?.options.chunks,
      promptTokens: promptTokens(turn),
      newId: (kind) => this.#host.newId(kind),
    };
    const active: ActiveResponse = { plan, finished: [], settled: false };
    this.#active.set(plan.response.id, active);
    void this.#respond(active, decision, decision.step?.options.delayMs ?? 0);
  }

  /** The items a response sees: its own `input` (references resolved against the conversation), else the conversation. */
  #inputOf(params: Record<string, unknown>): { items: unknown[] } | { refusal: RealtimeError } {
    if (!Array.isArray(params.input)) return { items: [...this.#items] };
    const items: unknown[] = [];
    for (const [position, entry] of params.input.entries()) {
      if (!isRecord(entry) || entry.type !== 'item_reference') {
        items.push(entry);
        continue;
      }
      const item = this.#items[this.#indexOf(String(entry.id))];
      if (item === undefined)
        return { refusal: invalid('invalid_value', `Item with id '${String(entry.id)}' not found in the conversation.`, `response.input[${position}].id`) };
      items.push(item);
    }
    return { items };
  }

  /**
   * Sends a response's events: `response.created` at once (the response is active from then on),
   * the rest after the step's delay. A scripted failure breaks it the Realtime way: a response that
   * fails (`response.done` with `status: "failed"`), a connection dropped, or none that ends.
   */
  async #respond(active: ActiveResponse, decision: Exclude<TurnDecision, { kind: 'refused' }>, delayMs: number): Promise<void> {
    const { plan } = active;
    const failure = decision.kind === 'failure' ? decision.failure : undefined;
    const answer: Answer = decision.kind === 'answer' ? decision.answers[0]! : decision.partial;
    const events = responseEvents(plan, answer);
    this.#sendOf(active, events[0]!);
    const wait = delayMs + (failure?.kind === 'delay' ? failure.ms : 0);
    if (wait > 0) {
      await this.#host.sleep(wait);
      if (active.settled) return;
    }
    if (failure === undefined || failure.kind === 'delay') {
      for (const event of events.slice(1)) this.#sendOf(active, event);
      return;
    }
    if (failure.kind === 'hang') return;
    if (failure.kind === 'drop-connection') {
      for (const event of events.slice(1, Math.min(failure.afterChunks, events.length - 1))) this.#sendOf(active, event);
      active.settled = true;
      this.#socket.terminate();
      return;
    }
    let error = { type: 'server_error', code: 'server_error' };
    if (failure.kind === 'stream-error') {
      for (const event of events.slice(1, Math.min(failure.afterChunks, events.length - 1))) this.#sendOf(active, event);
    } else if (failure.kind !== 'content-filter') {
      const known = transientFailure('openai', failure.kind, 'modeltape FakeProvider');
      error = { type: known.type, code: known.code ?? known.type };
    }
    this.#sendOf(active, endedResponse(plan, { status: 'failed', error }, active.finished));
  }

  #cancelResponse(responseId: unknown): RealtimeError | undefined {
    const active =
      typeof responseId === 'string' ? this.#active.get(responseId) : [...this.#active.values()].find((candidate) => candidate.plan.inConversation);
    if (active === undefined)
      return { type: 'invalid_request_error', code: 'response_cancel_not_active', message: 'Cancellation failed: no active response found', param: null };
    this.#sendOf(active, endedResponse(active.plan, { status: 'cancelled' }, active.finished));
    return undefined;
  }

  /** Sends one event of a response, keeping its finished items in the conversation; `response.done` ends it. */
  #sendOf(active: ActiveResponse, event: RealtimeEvent): void {
    if (active.settled) return;
    if (event.type === 'response.output_item.done') {
      const item = event.item as Item;
      active.finished.push(item);
      if (active.plan.inConversation) this.#items.push(item);
    }
    if (event.type === 'response.done') {
      active.settled = true;
      this.#active.delete(active.plan.response.id);
    }
    this.#send(event);
  }

  #send(event: RealtimeEvent): void {
    if (this.#closed) return;
    const { type, ...fields } = event;
    this.#socket.send(JSON.stringify({ type, event_id: this.#host.newId('event'), ...fields }));
  }

  #refuse(call: RealtimeCall, error: RealtimeError, eventId: string | undefined, status = 400): void {
    call.status = status;
    if (this.#closed) return;
    this.#socket.send(JSON.stringify(realtimeErrorEvent(this.#host.newId('event'), error, eventId)));
  }

  #indexOf(id: string): number {
    return this.#items.findIndex((item) => item.id === id);
  }

  #lastItemId(): string | null {
    const last = this.#items.at(-1);
    return last === undefined ? null : String(last.id);
  }
}

function invalid(code: string, message: string, param: string | null = null): RealtimeError {
  return { type: 'invalid_request_error', code, message, param };
}

function notFound(action: string, doing: string, id: string): RealtimeError {
  return invalid(`item_${action}_invalid_item_id`, `Error ${doing} item: the item with id '${id}' does not exist.`, 'item_id');
}

/** The session's audio with an update's input and output settings laid over it, field by field. */
function mergeAudio(current: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...current };
  for (const side of ['input', 'output'] as const) {
    if (update[side] === undefined) continue;
    merged[side] = isRecord(update[side]) && isRecord(current[side]) ? { ...current[side], ...update[side] } : update[side];
  }
  return merged;
}

/** How many bytes a millisecond of input audio takes: PCM16 at 24 kHz, or G.711 at 8 kHz. */
function bytesPerMillisecond(session: Record<string, unknown>): number {
  const input = isRecord(session.audio) && isRecord(session.audio.input) ? session.audio.input : {};
  const format = isRecord(input.format) ? input.format.type : undefined;
  return format === 'audio/pcmu' || format === 'audio/pcma' ? 8 : 48;
}

/** An item as events show it: the audio bytes of its content left out. */
function withoutAudio(item: Item): Item {
  if (!Array.isArray(item.content)) return item;
  return {
    ...item,
    content: item.content.map((part: unknown) => {
      if (!isRecord(part) || part.audio === undefined) return part;
      const { audio: _audio, ...rest } = part;
      return rest;
    }),
  };
}
