#!/usr/bin/env node
// corral's scripted model: a fake LLM server the live agent tests (test/agents/lab.ts) point
// the real agents at, so they run offline and say the same things every time.
//
//   node test/agents/model/server.mjs PORT
//
// Plain node:http, no dependencies, bound to 127.0.0.1 only (the agents must never reach
// anything else). It speaks:
//   Anthropic  POST /v1/messages (SSE or JSON), POST /v1/messages/count_tokens   anthropic.mjs
//   Gemini     POST …/models/<m>:streamGenerateContent?alt=sse, :generateContent,
//              :countTokens                                                          gemini.mjs
//   OpenAI     POST /v1/responses (SSE)                                              openai-responses.mjs
//              POST /v1/chat/completions (SSE or JSON)                               openai-chat.mjs
//              GET /v1/models
//   anything else: 200 {} (logged), so an agent's optional calls never fail.
// What it answers is script.mjs: RUNTOOL → a shell tool call, ASKQ → the ask-the-user tool,
// else a slowly streamed answer; after a tool result a short final text.
//
// Env knobs: PORT (if no argument; default 8787), LOG (log file; default $TMPDIR/corral-model.log),
// CHUNKS, CHUNK_MS, FIRST_TOKEN_MS (the slow answer's pacing), TOOL_CMD (what RUNTOOL runs),
// DUMP_DIR (save every request body there, one file each).
//
// Log lines ([ISO time] first): `listening on 127.0.0.1:PORT` once bound; `METHOD URL len=N` per
// request; `<api> plan {json}` with what it decided (kind, toolResult, the user text); `finished
// <api> kind=… stream|json ms=…` (api: anthropic, gemini, responses, chat) when a model answer's
// last byte was written, or `aborted <api> …` when the agent hung up first (an interrupt); token
// counts, the model list and unknown paths are not answers and log no `finished`.

import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as anthropic from './anthropic.mjs';
import * as gemini from './gemini.mjs';
import * as responses from './openai-responses.mjs';
import * as chat from './openai-chat.mjs';
import { sendJson } from './respond.mjs';
import { knobsFrom } from './script.mjs';

const PORT = Number(process.argv[2] || process.env.PORT || 8787);
const LOG = process.env.LOG || path.join(os.tmpdir(), 'corral-model.log');
const DUMP_DIR = process.env.DUMP_DIR || '';
const knobs = knobsFrom(process.env);

/** Synchronous appends: a test reading the log right after an answer sees every line before it. */
function log(...parts) {
  fs.appendFileSync(LOG, `[${new Date().toISOString()}] ${parts.join(' ')}\n`);
}

let dumped = 0;
/** One file per request body, named so that a listing sorts in arrival order and never collides. */
function dump(pathname, raw) {
  const name = `${Date.now()}-${String(dumped++).padStart(5, '0')}-${pathname.replace(/[^a-z0-9]+/gi, '_')}.json`;
  fs.writeFileSync(path.join(DUMP_DIR, name), raw);
}

const MODELS = ['gpt-fake', 'fake-model', 'fake'].map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' }));

async function route(req, res, body, url, ctx) {
  const p = url.pathname;
  if (req.method === 'POST') {
    if (p === '/v1/messages') return anthropic.messages(req, res, body, ctx);
    if (p === '/v1/messages/count_tokens') return anthropic.countTokens(req, res, body, ctx);
    const g = p.match(/\/models\/([^/:]+):(\w+)$/);
    if (g) return gemini.handle(req, res, body, ctx, g[1], g[2]);
    if (p.endsWith('/responses')) return responses.handle(req, res, body, ctx);
    if (p.endsWith('/chat/completions')) return chat.handle(req, res, body, ctx);
  }
  // `models` for the OpenAI-style clients, an empty `models` for the ones that read that key.
  if (req.method === 'GET' && p.endsWith('/models')) return sendJson(res, ctx, null, 'list', { object: 'list', data: MODELS, models: [] });
  return sendJson(res, ctx, null, 'empty', {});
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = { _raw: raw.slice(0, 200) };
    }
    const url = new URL(req.url, 'http://127.0.0.1');
    log(req.method, req.url, `len=${raw.length}`);
    if (DUMP_DIR && raw) dump(url.pathname, raw);
    const started = Date.now();
    const ctx = {
      knobs,
      log,
      started,
      dumping: !!DUMP_DIR,
      finished: (api, kind, how) => log(`finished ${api} kind=${kind} ${how} ms=${Date.now() - started}`),
    };
    try {
      await route(req, res, body, url, ctx);
    } catch (error) {
      log('ERROR', error.stack);
      try {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(error));
      } catch {
        // The agent already hung up.
      }
    }
  });
});

server.listen(PORT, '127.0.0.1', () => log(`listening on 127.0.0.1:${PORT}`));
// A port already taken (a test picking ports at random) ends the process, so the caller tries another.
server.on('error', (error) => {
  log('ERROR', error.message);
  process.exit(1);
});
