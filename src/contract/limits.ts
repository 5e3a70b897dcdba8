/** The transport's hard limits (SPEC §3), one table the server and the docs read. */

/** Hard limits of the transport (SPEC §3). */
export const LIMITS = {
  /** A request line longer than this is refused and the connection closed. */
  maxLineBytes: 1024 * 1024,
  /** Connections beyond this many get server_busy. */
  maxConnections: 64,
  /** A client that sent half a line and then nothing for this long is dropped. */
  partialLineTimeoutMs: 30_000,
  /** A connection that sent nothing for this long and holds no stream or wait is closed. */
  idleConnectionMs: 60_000,
  /** Replies queued for a client that does not read them; past this, its requests wait unread. */
  maxQueuedReplyBytes: 8 * 1024 * 1024,
  /** Requests one connection may have running at once (waits included); more wait their turn. */
  maxRequestsInFlight: 64,
  /** Largest text `send_text` accepts. */
  maxSendTextBytes: 64 * 1024,
  /** Per-subscriber queue before events are dropped. */
  subscriberQueue: 1024,
  /** A quiet subscription gets a heartbeat after this long. */
  heartbeatMs: 15_000,
  /** `surface_changed` is coalesced to at most one per pane per this many ms. */
  surfaceChangedMs: 50,
} as const;
