/**
 * `corral` with no verb: the full-screen TUI with the server embedded in the same process
 * (same socket, so every CLI verb drives the open TUI). The Ink views are loaded here and
 * only here; everything else in src/ stays free of UI code.
 */
import { startServer } from '../server/start-server.js';
import { CorralError } from '../contract/protocol.js';
import { Compositor } from '../screen/compositor.js';
import { TuiController, type ChromeRenderer } from './controller.js';
import { enterTerminalMode } from './terminal-mode.js';

export interface TuiOptions {
  socket?: string;
  session?: string;
  scripting?: boolean;
  /** `corral --fresh`: do not restore the saved session (SPEC §13). */
  fresh?: boolean;
}

/** How long a quitting TUI may take (panes get TERM, then KILL after 1.5 s) before it exits anyway. */
const EXIT_GRACE_MS = 4000;

/** Fallback size when stdout is not a terminal (tests pipe it). */
const DEFAULT_SIZE = { cols: 120, rows: 40 } as const;

/** Starts the TUI; resolves with the process exit code once the user quits. */
export async function runTui(opts: TuiOptions): Promise<number> {
  // Ink and React are ~1 s to import in development mode; the TUI never wants that mode.
  process.env.NODE_ENV = 'production';
  const stdin = process.stdin;
  const stdout = process.stdout;
  const server = await startServer({
    socket: opts.socket,
    session: opts.session,
    scripting: opts.scripting,
    fresh: opts.fresh,
    // stderr would draw over the TUI: problems go to the status line (below) instead.
    log: () => {},
  }).catch((error: unknown) => {
    // Like tmux refusing to nest: inside a corral pane CORRAL_SOCKET points at the outer server.
    const pane = process.env.CORRAL_PANE_ID;
    if (pane && !opts.socket && error instanceof CorralError) {
      throw new CorralError(error.code, `${error.message}; you are inside corral pane ${pane} — to run a nested corral, give it its own --socket PATH (or unset CORRAL_SOCKET)`, error.data);
    }
    throw error;
  });
  const views = await import('../../components/index.js');
  // The memoising renderer re-renders only the chrome pieces whose data changed.
  const renderer: ChromeRenderer = { renderChrome: views.createChromeRenderer(), renderOverlay: views.renderOverlay, hitTest: views.hitTest };
  const size = () => ({ cols: stdout.columns || DEFAULT_SIZE.cols, rows: stdout.rows || DEFAULT_SIZE.rows });
  const mode = enterTerminalMode(stdin, stdout);

  return new Promise<number>((resolve) => {
    let finished = false;
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      controller.dispose();
      compositor.dispose();
      mode.restore();
      stdin.off('data', onInput);
      stdin.pause();
      // Whatever happens while shutting down (a stuck pane, a stray handle), a quit TUI exits.
      setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
      void server.stop().then(() => resolve(code));
    };
    const { cols, rows } = size();
    const compositor = new Compositor({ cols, rows, write: (bytes) => stdout.write(bytes) });
    stdout.on('drain', () => compositor.outputDrained());
    if (server.core.model.workspaces.size === 0) server.core.createWorkspace({ cwd: process.cwd() });
    const controller = new TuiController({
      core: server.core,
      compositor,
      renderer,
      cols,
      rows,
      onQuit: () => finish(0),
      startupMessage: startupMessage(server),
      notifier: server.notifier,
      writeTerminal: (bytes) => stdout.write(bytes),
    });
    const onInput = (chunk: string) => controller.handleInput(chunk);
    stdin.setEncoding('utf8');
    stdin.on('data', onInput);
    stdin.resume();
    stdout.on('resize', () => {
      const next = size();
      controller.resize(next.cols, next.rows);
    });
    for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) process.once(signal, () => finish(0));
    // The terminal went away (its window closed, tmux killed): writes fail with EIO. That is a
    // hang-up, not a crash — and reporting it on the same dead terminal must not loop.
    for (const stream of [stdin, stdout, process.stderr]) stream.on('error', () => finish(0));
    let crashed = false;
    process.on('uncaughtException', (error) => {
      if (crashed) return;
      crashed = true;
      mode.restore();
      try {
        process.stderr.write(`corral: uncaught ${error.stack ?? error}\n`);
      } catch {
        // No terminal to report to.
      }
      finish(1);
    });
  });
}

/** What the status line says at start: a config error and the saved session's problems (SPEC §13). */
function startupMessage(server: Awaited<ReturnType<typeof startServer>>): { text: string; error: boolean } | null {
  const problems = [...(server.configError ? [server.configError.message] : []), ...server.persistence.problems];
  return problems.length === 0 ? null : { text: problems.join('; '), error: true };
}
