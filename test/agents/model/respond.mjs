// Writing answers, shared by the API modules. Every answer, streamed or not, ends in one log
// line `finished <api> …` written once its last byte has been handed to the socket: the
// moment the agent can have the whole answer, which bench/agent-generic.mjs measures from.
// An answer the agent hung up on (an interrupt) logs `aborted <api> …` instead. Replies that are
// not the model answering (token counts, the model list, unknown paths) log no `finished`, so
// the last `finished` line after a prompt is the model's.

/** A plain JSON answer; `api` null for a reply that is not a model answer. */
export function sendJson(res, ctx, api, kind, body, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body), () => {
    if (api) ctx.finished(api, kind, 'json');
  });
}

/**
 * An event stream: `send(text)` writes raw bytes (the API module formats its events), `end()`
 * closes it. After the agent hangs up, `stopped()` is true and writes are dropped, so a long
 * answer stops early instead of writing into a closed socket.
 */
export function openStream(res, ctx, api, kind, headers = {}) {
  let stopped = false;
  let ended = false;
  res.on('close', () => {
    if (!ended) {
      stopped = true;
      ctx.log(`aborted ${api} kind=${kind} ms=${Date.now() - ctx.started}`);
    }
  });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  return {
    stopped: () => stopped,
    send(text) {
      if (!stopped) res.write(text);
    },
    end() {
      if (stopped || ended) return;
      ended = true;
      res.end(() => ctx.finished(api, kind, 'stream'));
    },
  };
}
