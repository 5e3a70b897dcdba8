/**
 * Starts the corral core and its socket: used by `corral server` and embedded by the TUI.
 */
import { CorralCore } from '../core/corral-core.js';
import { RpcServer } from '../rpc/server.js';
import { loadConfig } from '../config/load-config.js';
import type { ConfigError } from '../config/load-config.js';
import { resolveConfigPath, resolveRuntimeDir, resolveSocketPath } from '../paths.js';
import { bindSocket, claimSocketPath, fileIdentity, removeSocketIfOurs } from './socket-guard.js';
import { writeLauncher } from './launcher.js';
import { loadAllRules, rulesInUse } from '../agents/rules.js';
import { Notifier } from '../notify/notifier.js';
import { Persistence } from '../persist/session-persistence.js';
import { stateSessionName } from '../persist/state-files.js';
import { ClientHub } from '../tui/client-hub.js';
import { transportOptions } from '../rpc/server.js';
import { trimWhenIdle } from '../terminal/memory-release.js';
import { MachineHub } from '../machines/machine-hub.js';
import { fleetNotifyView } from '../machines/fleet-notify.js';
import { visibleControls } from '../terminal/control-chars.js';
import { WorktreeWatch } from '../actions/worktree-watch.js';
import { Worktrees } from '../worktree/worktrees.js';
import { CheckpointKeeper } from '../actions/checkpoint-keeper.js';

export interface StartOptions {
  socket?: string;
  session?: string;
  scripting?: boolean;
  env?: NodeJS.ProcessEnv;
  /** `--fresh`: do not restore the saved session (it is moved aside, SPEC §13). */
  fresh?: boolean;
  /** Where the server reports what it cannot do (the saved session's problems); stderr by default. */
  log?: (message: string) => void;
}

export interface RunningServer {
  core: CorralCore;
  socketPath: string;
  configError: ConfigError | null;
  /** Notifications (SPEC §12): runs `[notify] command`; TUIs attach for their terminals. */
  notifier: Notifier;
  /** The saved session: restored at start, kept current, flushed on stop (SPEC §13). */
  persistence: Persistence;
  /** The attached clients (SPEC §1). */
  clients: ClientHub;
  /**
   * Binds the socket again when its file is gone or is not this server's (SIGUSR1, as tmux):
   * what it did, for the log. Refuses to replace another live server's socket.
   */
  recreateSocket(): Promise<string>;
  /** Ends every pane, closes the socket and removes it (if it is still this server's). */
  stop(): Promise<void>;
}

/** Loads config, claims the socket, and serves a fresh core on it. */
export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const env = opts.env ?? process.env;
  const socketPath = resolveSocketPath({ socket: opts.socket, session: opts.session }, env);
  const { config, error: configError } = loadConfig(resolveConfigPath(env), env);
  await claimSocketPath(socketPath);
  // In corral's own private directory, not next to a --socket the user chose.
  const launcherDir = writeLauncher(resolveRuntimeDir(env));
  const core = new CorralCore({
    config,
    scripting: Boolean(opts.scripting) || env.CORRAL_SCRIPTING === '1',
    socketPath,
    launcherDir,
    baseEnv: env,
    agentRules: rulesInUse(loadAllRules(), env),
  });
  // Links to the saved machines (SPEC §14); they start once the socket answers.
  const machines = new MachineHub({
    env,
    runtimeDir: resolveRuntimeDir(env),
    sshConfig: config.machines.ssh,
    scrollback: config.scrollback_lines,
    predict: config.machines.predict,
    emit: (event) => core.bus.emit(event),
    // Link errors quote what ssh and the far side printed: peer text, shown with its controls visible.
    log: (message) => process.stderr.write(`corral server: ${visibleControls(message)}\n`),
  });
  // Notifications cover every machine's agents (SPEC §14).
  const notifier = new Notifier({ core: fleetNotifyView(core, machines), config: config.notify });
  // Worktrees (SPEC §15): the registry read once, then kept current from events.
  const worktrees = new WorktreeWatch(core, new Worktrees(config.worktree, env));
  core.worktrees = worktrees;
  await worktrees.start();
  // A checkpoint before every turn (SPEC §20): refs in the agents' repositories, nothing to load.
  const checkpoints = new CheckpointKeeper(core, env, () => config.checkpoints.keep);
  core.checkpoints = checkpoints;
  checkpoints.start();
  const log = opts.log ?? ((message: string) => process.stderr.write(`corral: ${message}\n`));
  // Restored before the socket answers, so the first client already sees the old session.
  const persistence = await Persistence.start({ core, session: stateSessionName(opts, env), env, fresh: Boolean(opts.fresh), log });
  core.persistence = persistence;
  // The last workspace closed under attached clients: they leave as a quitting TUI did.
  let socketIno: number | null = null;
  const clients = new ClientHub({ core, notifier, configError, problems: () => persistence.problems, onEmpty: () => void clients.closeAll('', 0), socketIno: () => socketIno, mirrors: machines });
  const rpc = new RpcServer(core, transportOptions(env), clients, machines);
  let socketIdentity = await bindSocket(socketPath, (path) => rpc.listen(path)).catch(async (error: unknown) => {
    persistence.dispose();
    worktrees.dispose();
    checkpoints.dispose();
    await rpc.close();
    await core.shutdown();
    throw error;
  });
  socketIno = socketIdentity.ino;
  machines.reload();
  // Gives back the young generation V8 grew for a busy spell, once the server is idle again:
  // looked at after start-up and after activity (events, requests), never on an idle server.
  const idleTrim = trimWhenIdle();
  idleTrim.kick();
  const trimListener = core.listen(() => idleTrim.kick());
  rpc.onRequest(() => idleTrim.kick());
  const recreateSocket = async (): Promise<string> => {
    const now = fileIdentity(socketPath);
    if (now !== null && now.dev === socketIdentity.dev && now.ino === socketIdentity.ino) return `${socketPath} is in place`;
    // The directory again if it went too; a stale socket there is replaced, a live server's is not.
    await claimSocketPath(socketPath);
    let closeOld = (): void => {};
    socketIdentity = await bindSocket(socketPath, async (path) => {
      closeOld = await rpc.listenAgain(path);
    });
    socketIno = socketIdentity.ino;
    closeOld();
    return `re-created ${socketPath}`;
  };
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      trimListener.dispose();
      idleTrim.dispose();
      // Attached clients hear why before their connections close (they exit 1 and say so).
      const told = clients.closeAll('[the corral server was stopped: its panes ended]', 1);
      notifier.dispose();
      machines.close();
      worktrees.dispose();
      checkpoints.dispose();
      // Saved while the panes still run: their cwd, programs and lines are still there to read.
      await persistence.flush().catch((error: unknown) => log(`the last save failed: ${String(error)}`));
      // Terminals the server wrote to directly are handed back before the sockets close.
      await told;
      await rpc.close();
      await core.shutdown();
      removeSocketIfOurs(socketPath, socketIdentity);
    })());
  return { core, socketPath, configError, notifier, clients, persistence, recreateSocket, stop };
}

