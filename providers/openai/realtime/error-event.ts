/** What a Realtime `error` event says: the API's `error` object without the client's event id. */
export interface RealtimeError {
  /** `invalid_request_error`, `server_error`, … */
  type: string;
  code: string | null;
  message: string;
  /** The client event's field the error is about, in dotted form (`session.type`). */
  param: string | null;
}

/**
 * A Realtime `error` event, as the server sends one for a client event it refuses (the session
 * stays open): `{type:"error", event_id, error:{type, code, message, param, event_id}}`, where
 * `error.event_id` is the refused client event's own id, or null. The SDKs raise it with its
 * message (`OpenAIRealtimeError` in the `openai` package).
 */
export function realtimeErrorEvent(eventId: string, error: RealtimeError, clientEventId: unknown): Record<string, unknown> {
  return {
    type: 'error',
    event_id: eventId,
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      param: error.param,
      event_id: typeof clientEventId === 'string' ? clientEventId : null,
    },
  };
}
