/**
 * The web view's page (SPEC §16), one bundle built by scripts/build.mjs. It logs in with the
 * token from the URL's fragment (once; the fragment is then wiped from the address bar and
 * history), paints the fleet from one POST, then follows the WebSocket: fleet updates as the
 * server's events arrive, the opened pane's screen, and errors. The session cookie is
 * HttpOnly: this script never sees it.
 */
import { DEFAULT_PREDICT, type PredictMode } from '../../screen/remote-prediction.js';
import '@xterm/xterm/css/xterm.css';
import './app.css';
import type { WebFleet } from '../../contract/web.js';
import { el, text } from './dom.js';
import { renderFleet, type FleetActions } from './fleet-view.js';
import { patchStatus } from '../fleet-order.js';
import { PaneView } from './pane-view.js';
import type { ServerMessage } from './protocol.js';

interface PageState {
  fleet: WebFleet | null;
  readOnly: boolean;
  why: string | null;
  pane: PaneView | null;
  ws: WebSocket | null;
  /** Fleet messages applied (tests and the bench wait on this). */
  fleetVersion: number;
  /** When the fleet was first painted, ms after navigation began (bench/web.mjs reads it). */
  firstPaintAt: number | null;
  /** Called with each screen message before it is drawn (bench/web.mjs times echoes with it). */
  onScreen: ((message: ServerMessage & { t: 'screen' }) => void) | null;
  send: (message: object) => void;
  /** When each status message arrived (Date.now()): bench/web.mjs splits the page's share from the wire's. */
  statusArrivals: number[];
  /** `corral web --predict`, from its hello. */
  predict: PredictMode;
}

const state: PageState = { fleet: null, readOnly: true, why: null, pane: null, ws: null, fleetVersion: 0, firstPaintAt: null, onScreen: null, send: (m) => send(m), statusArrivals: [], predict: DEFAULT_PREDICT };
(window as unknown as { corral: PageState }).corral = state;

const app = document.getElementById('app')!;
const status = el('p', { class: 'status', id: 'status' });
const banner = el('p', { class: 'banner', id: 'banner', hidden: '' });
const main = el('main', { id: 'fleet' });
app.append(el('header', { class: 'top' }, el('h1', {}, text('corral')), status), banner, main);

function setStatus(value: string): void {
  status.replaceChildren(text(value));
}

function setAccess(readOnly: boolean, why: string | null): void {
  state.readOnly = readOnly;
  state.why = why;
  if (readOnly) {
    banner.replaceChildren(text(why ?? 'read-only'));
    banner.hidden = false;
  } else banner.hidden = true;
  state.pane?.updateAccess(why);
}

function send(message: object): void {
  if (state.ws?.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
}

const fleetActions: FleetActions = {
  open: (paneId, title) => void openPane(paneId, title),
  answer: (paneId, label) => send({ t: 'answer', pane: paneId, label }),
  readOnly: () => state.readOnly,
};

function paint(): void {
  if (!state.fleet) return;
  main.replaceChildren(renderFleet(state.fleet, fleetActions));
  state.firstPaintAt ??= performance.now();
  state.pane?.showAgent(state.fleet.agents.find((a) => a.pane_id === state.pane?.paneId));
  state.fleetVersion++;
}

/** The pane asked for last: a slower open that finishes after another was asked for is dropped. */
let opening = 0;

async function openPane(paneId: string, title: string): Promise<void> {
  closePane();
  const seq = ++opening;
  const view = await PaneView.open(paneId, title, {
    type: (pane, data) => send({ t: 'input', pane, data }),
    answer: (pane, label) => send({ t: 'answer', pane, label }),
    close: () => closePane(),
    readOnly: () => state.readOnly,
    predict: () => state.predict,
  });
  if (seq !== opening) return view.dispose();
  state.pane = view;
  view.updateAccess(state.why);
  view.showAgent(state.fleet?.agents.find((a) => a.pane_id === paneId));
  app.classList.add('with-pane');
  app.appendChild(view.root);
  send({ t: 'watch', pane: paneId });
  view.focus();
}

function closePane(): void {
  opening++;
  if (!state.pane) return;
  send({ t: 'unwatch' });
  state.pane.root.remove();
  state.pane.dispose();
  state.pane = null;
  app.classList.remove('with-pane');
}

/** The last fleet message's text: an identical one (a read after an event already applied) is not drawn again. */
let lastFleetText = '';

function onMessage(message: ServerMessage): void {
  switch (message.t) {
    case 'hello':
      state.predict = message.predict ?? DEFAULT_PREDICT;
      setAccess(message.read_only, message.why);
      break;
    case 'fleet':
      if (message.read_only !== undefined) setAccess(message.read_only, message.why ?? null);
      state.fleet = message.fleet;
      paint();
      break;
    case 'status': {
      state.statusArrivals.push(Date.now());
      const patched = state.fleet ? patchStatus(state.fleet, message.change) : null;
      if (patched) {
        state.fleet = patched;
        paint();
      }
      break;
    }
    case 'screen':
      state.onScreen?.(message);
      if (state.pane && (message.pane_id === state.pane.paneId || message.pane_id === '')) state.pane.apply(message);
      break;
    case 'error':
      setStatus(`error: ${message.message}`);
      break;
    case 'pong':
      if (ping !== null && message.id === ping.id) {
        state.pane?.roundTrip(performance.now() - ping.sent);
        ping = null;
      }
      break;
  }
}

/**
 * The page's round trip to `corral web`, every few seconds while a pane is open: a phone on
 * another network is what makes the predicted echo ('adaptive') worth showing.
 */
let pingId = 0;
/** The ping waiting for its pong (a newer one replaces it: only the latest is timed). */
let ping: { id: number; sent: number } | null = null;
setInterval(() => {
  if (!state.pane || state.ws?.readyState !== WebSocket.OPEN) return;
  ping = { id: ++pingId, sent: performance.now() };
  send({ t: 'ping', id: ping.id });
}, 3000);

function connect(): void {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`);
  state.ws = ws;
  let opened = false;
  ws.onopen = () => {
    opened = true;
    setStatus('live');
  };
  ws.onmessage = (event) => {
    const text = String(event.data);
    if (text.startsWith('{"t":"fleet"')) {
      if (text === lastFleetText) return;
      lastFleetText = text;
    }
    try {
      onMessage(JSON.parse(text) as ServerMessage);
    } catch {
      // A message this page does not understand (a newer corral web): ignored.
    }
  };
  ws.onclose = () => {
    state.ws = null;
    if (!opened) return setStatus('not logged in: open the URL `corral web` printed (its token works once)');
    setStatus('disconnected — reload to reconnect');
  };
}

/** Exchanges the fragment's token for the cookie; the token leaves the address bar first. */
async function login(): Promise<void> {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]{1,128})/.exec(location.hash);
  if (!match) return;
  history.replaceState(null, '', location.pathname);
  const res = await fetch('/api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: match[1] }), credentials: 'same-origin' });
  if (res.status !== 204) setStatus('that token was already used or is wrong: start `corral web` again for a new one');
}

async function start(): Promise<void> {
  await login();
  const res = await fetch('/api/fleet', { method: 'POST', credentials: 'same-origin' });
  if (res.status !== 200) {
    setStatus('not logged in: open the URL `corral web` printed (its token works once)');
    return;
  }
  state.fleet = (await res.json()) as WebFleet;
  paint();
  setStatus('connecting…');
  connect();
}

void start();
