/**
 * `corral machine add|list|remove|enable|disable|test|install` and `corral bridge` (SPEC §14).
 * The machine verbs edit machines.toml themselves (a server need not run to save a machine)
 * and then tell a running server to reload it; `list` asks the server for the links' states.
 * `bridge` is the far side of a link: it carries the socket's JSON-RPC between its stdio and
 * this host's server, starting that server when none runs.
 */
import { connect as netConnect } from 'node:net';
import { dirname } from 'node:path';
import { CorralError, type MachineInfo } from '../../contract/protocol.js';
import { resolveRuntimeDir, resolveSocketPath } from '../../paths.js';
import { connect } from '../../rpc/client.js';
import { assertPrivateDir } from '../../socket-dir.js';
import { startBackgroundServer } from '../../server/background.js';
import { probeServer } from '../../server/socket-guard.js';
import { checkMachineName, editMachines, machinesPath, newMachine, readMachines, type MachineEntry } from '../../machines/machine-config.js';
import { testMachine } from '../../machines/machine-test.js';
import { installMachine } from '../../machines/machine-install.js';
import { loadConfig } from '../../config/load-config.js';
import { resolveConfigPath } from '../../paths.js';
import { sshProgram } from '../../machines/ssh-command.js';
import { asTextBlock, cell, formatJsonLine, formatResult, formatTable } from '../output.js';
import { defineCommand, FROM_FLAGS, out, reportError, socketPathOf, withClient, type GlobalArgs } from '../run.js';
import { linesOption } from '../numbers.js';

/**
 * Tells a running server to read machines.toml again; quiet when none runs. `machine add
 * --session` names the session on the far side (SPEC §14), so the local server is found by
 * `--socket` or `$CORRAL_SESSION`/`$CORRAL_SOCKET`, never by that flag.
 */
async function reloadServer(argv: GlobalArgs): Promise<void> {
  const socketPath = socketPathOf({ socket: argv.socket });
  if (!(await probeServer(socketPath))) return;
  const client = await connect(socketPath);
  try {
    await client.call('machine.reload', {});
  } finally {
    client.close();
  }
}

/** The entry named `name`, or machine_not_found. */
function findMachine(name: string): MachineEntry {
  const entry = readMachines(machinesPath()).find((m) => m.name === name);
  if (!entry) throw new CorralError('machine_not_found', `no machine named ${JSON.stringify(name)}; \`corral machine list\` shows the saved ones`, { machine: name });
  return entry;
}

/** One edit of the file, then a reload, then `{"result":{"machine":…}}`. */
async function edit(argv: GlobalArgs, name: string, change: (machines: MachineEntry[]) => MachineEntry[], show: (machines: MachineEntry[]) => unknown): Promise<void> {
  try {
    checkMachineName(name);
    const machines = editMachines(machinesPath(), change);
    await reloadServer(argv);
    out(`${formatResult(show(machines))}\n`);
  } catch (error) {
    reportError(error);
  }
}

function mustExist(machines: MachineEntry[], name: string): void {
  if (!machines.some((m) => m.name === name)) throw new CorralError('machine_not_found', `no machine named ${JSON.stringify(name)}`, { machine: name });
}

/** The ssh program for verbs run here, as a link would use it. */
function program(): string[] {
  const { config } = loadConfig(resolveConfigPath());
  return sshProgram(process.env, config.machines.ssh);
}

function formatMachines(machines: MachineInfo[]): string {
  if (machines.length === 0) return 'no machines saved: `corral machine add NAME TARGET` adds one\n';
  const rows = machines.map((m) => [
    cell(m.name),
    cell(m.label),
    cell(m.target),
    m.state,
    m.latency_ms === null ? '-' : `${m.latency_ms} ms`,
    String(m.agents),
    cell(m.remote_version ?? '-'),
    cell(m.last_error ?? ''),
  ]);
  return `${formatTable(['MACHINE', 'LABEL', 'TARGET', 'STATE', 'LATENCY', 'AGENTS', 'VERSION', 'LAST ERROR'], rows)}\n`;
}

/** `machine enable|disable NAME`. */
function setEnabled(argv: GlobalArgs & { name: string }, enabled: boolean): Promise<void> {
  return edit(
    argv,
    argv.name,
    (machines) => (mustExist(machines, argv.name), machines.map((m) => (m.name === argv.name ? { ...m, enabled } : m))),
    (machines) => ({ machine: machines.find((m) => m.name === argv.name) }),
  );
}

const name = { name: { type: 'string', demandOption: true, describe: 'the machine name ([a-z0-9][a-z0-9-]{0,31})' } } as const;

export const machineCommand = defineCommand({
  command: 'machine <command>',
  describe: 'Other hosts reached over ssh: their panes and agents in this corral (docs/machines.md)',
  builder: (y) =>
    y
      .command({
        command: 'add <name> <target>',
        describe: 'Save a machine: TARGET is an ssh destination (host, user@host, ssh://user@host:port, a Host alias)',
        builder: (c) =>
          c
            .positional('name', name.name)
            .positional('target', { type: 'string', demandOption: true })
            .option('label', { type: 'string', describe: 'shown in the sidebar (default: the name)' })
            .option('session', { type: 'string', describe: 'the corral session to reach there (default: default)' })
            .option('corral', { type: 'string', describe: 'the corral command on that host (default: corral on its PATH)' }),
        handler: (raw) => {
          const argv = raw as unknown as GlobalArgs & { name: string; target: string; label?: string; session?: string; corral?: string };
          return edit(
            argv,
            argv.name,
            (machines) => {
              if (machines.some((m) => m.name === argv.name)) throw new CorralError('invalid_params', `a machine named ${argv.name} is saved already; \`corral machine remove ${argv.name}\` first`);
              return [...machines, newMachine(argv.name, argv.target, { label: argv.label, session: argv.session, corral: argv.corral })];
            },
            (machines) => ({ machine: machines.find((m) => m.name === argv.name) }),
          );
        },
      })
      .command({
        command: 'list',
        describe: 'The saved machines and the state of each link',
        builder: (c) => c.option('json', { type: 'boolean', default: false, describe: 'print {"machines":[…]}' }),
        handler: async (raw) => {
          const argv = raw as unknown as GlobalArgs & { json: boolean };
          try {
            const socketPath = socketPathOf(argv);
            let machines: MachineInfo[];
            if (await probeServer(socketPath)) {
              const client = await connect(socketPath);
              try {
                machines = (await client.call('machine.list', {})).machines;
              } finally {
                client.close();
              }
            } else {
              // No server: the saved machines, none of them linked.
              machines = readMachines(machinesPath()).map((m) => ({ name: m.name, label: m.label, target: m.target, session: m.session, enabled: m.enabled, state: 'disabled', latency_ms: null, remote_version: null, agents: 0, last_error: m.enabled ? 'no corral server runs here, so nothing is linked' : null }));
            }
            out(argv.json ? `${formatJsonLine({ machines })}\n` : formatMachines(machines));
          } catch (error) {
            reportError(error);
          }
        },
      })
      .command({
        command: 'remove <name>',
        describe: 'Forget a machine (its remote panes keep running there)',
        builder: (c) => c.positional('name', name.name),
        handler: (raw) => {
          const argv = raw as unknown as GlobalArgs & { name: string };
          return edit(argv, argv.name, (machines) => (mustExist(machines, argv.name), machines.filter((m) => m.name !== argv.name)), () => ({ removed: argv.name }));
        },
      })
      .command({
        command: 'enable <name>',
        describe: 'Link to a machine again',
        builder: (c) => c.positional('name', name.name),
        handler: (raw) => setEnabled(raw as unknown as GlobalArgs & { name: string }, true),
      })
      .command({
        command: 'disable <name>',
        describe: 'Stop linking to a machine (kept in the file)',
        builder: (c) => c.positional('name', name.name),
        handler: (raw) => setEnabled(raw as unknown as GlobalArgs & { name: string }, false),
      })
      .command({
        command: 'test <name>',
        describe: 'Connect once: the remote corral version and the round trip',
        builder: (c) => c.positional('name', name.name),
        handler: async (raw) => {
          const argv = raw as unknown as GlobalArgs & { name: string };
          try {
            out(`${formatResult(await testMachine(findMachine(argv.name), program(), resolveRuntimeDir()))}\n`);
          } catch (error) {
            reportError(error);
          }
        },
      })
      .command({
        command: 'install <name>',
        describe: "Copy this corral to the machine (~/.local/share/corral/<version>/) over ssh; the remote needs node >= 20.19",
        builder: (c) => c.positional('name', name.name),
        handler: async (raw) => {
          const argv = raw as unknown as GlobalArgs & { name: string };
          try {
            const entry = findMachine(argv.name);
            const installed = await installMachine(entry, program(), resolveRuntimeDir());
            // From now on the link runs the installed copy.
            editMachines(machinesPath(), (machines) => machines.map((m) => (m.name === entry.name ? { ...m, corral: installed.command } : m)));
            await reloadServer(argv);
            out(`${formatResult(installed)}\n`);
          } catch (error) {
            reportError(error);
          }
        },
      })
      .command({
        command: 'read <pane>',
        describe: "A remote pane's text as this corral's mirror of it shows it (build/w1:p2), without a round trip",
        builder: (c) =>
          c
            .positional('pane', { type: 'string', demandOption: true })
            .option('lines', linesOption('last N rows, 1..10000 (default 80)'))
            .option('source', { choices: ['visible', 'recent', 'recent-unwrapped'], default: 'recent' })
            .option('ansi', { type: 'boolean', default: false, describe: 'keep escape sequences' }),
        handler: async (raw) => {
          const argv = raw as unknown as GlobalArgs & { pane: string; lines?: number; source: 'visible' | 'recent' | 'recent-unwrapped'; ansi: boolean };
          await withClient(argv, async (client) => {
            const { read } = await client.call('machine.read', { pane_id: argv.pane, lines: argv.lines, source: argv.source, format: argv.ansi ? 'ansi' : 'text' });
            out(asTextBlock(read.text));
          }, FROM_FLAGS);
        },
      })
      .demandCommand(1, 'give a machine command: add, list, remove, enable, disable, test, install, read'),
  handler: () => {},
});

/**
 * `corral bridge`: the far end of a machine link, run by ssh. Bytes between stdin/stdout and
 * the session's socket, both ways, until either side ends; the server is started in the
 * background first when none answers (as `corral` does).
 */
export const bridgeCommand = defineCommand({
  command: 'bridge',
  describe: "Carry this host's corral socket over stdio (what a machine link runs through ssh)",
  builder: (y) => y,
  handler: async (argv) => {
    try {
      const socketPath = resolveSocketPath({ socket: argv.socket, session: argv.session });
      if (!(await probeServer(socketPath))) await startBackgroundServer(socketPath, { exitEmpty: false, session: argv.session });
      assertPrivateDir(dirname(socketPath));
      await new Promise<void>((resolve, reject) => {
        const socket = netConnect(socketPath);
        socket.once('error', reject);
        socket.once('connect', () => {
          socket.off('error', reject);
          process.stdin.pipe(socket);
          socket.pipe(process.stdout);
          // Either end closing ends the bridge: ssh's channel, or the server.
          socket.once('close', () => resolve());
          socket.on('error', () => resolve());
          process.stdin.once('end', () => socket.end());
          process.stdout.on('error', () => socket.destroy());
        });
      });
      process.exit(0);
    } catch (error) {
      reportError(error instanceof CorralError ? error : new CorralError('internal_error', `bridge: ${(error as Error).message}`));
    }
  },
});
