/**
 * `corral hooks install|uninstall|status <agent> [--project]`: corral's entries in an agent's
 * own hook config (SPEC §4). Local file edits only; no server needed.
 */
import type { Argv } from 'yargs';
import { HOOK_AGENTS, type HookAgent } from '../../agents/hook-events.js';
import { type HooksReport, HooksConfigError, hooksStatus, installHooks, uninstallHooks } from '../hooks/hooks-install.js';
import { EXIT } from '../../contract/protocol.js';
import { displayPath } from '../../paths.js';
import { formatJsonLine, humanText, terminalJson } from '../output.js';
import { defineCommand, out } from '../run.js';

interface HooksArgs {
  agent: string;
  project?: boolean;
  json?: boolean;
}

function withAgent(y: Argv): Argv<HooksArgs> {
  return y
    .positional('agent', { type: 'string', choices: HOOK_AGENTS, demandOption: true, describe: 'the agent whose hook config to edit' })
    .option('project', { type: 'boolean', default: false, describe: "the project's config in the current directory instead of the user's" })
    .option('json', { type: 'boolean', default: false, describe: 'print the report as JSON' }) as Argv<HooksArgs>;
}

/** Human form of a report: the file, then one line per event. */
export function formatHooksReport(report: HooksReport, verb: 'install' | 'uninstall' | 'status'): string {
  const lines = [`${report.agent}: ${displayPath(report.file)}${report.changed ? '' : verb === 'status' ? '' : ' (unchanged)'}`];
  for (const e of report.events) {
    const trust = e.trusted === undefined ? '' : e.trusted ? '  trusted' : '  not trusted (approve in Codex: /hooks)';
    lines.push(`  ${e.event.padEnd(18)} → ai.${e.corral_event.padEnd(14)} ${e.status}${trust}`);
  }
  if (report.trust_file && verb !== 'status') lines.push(`  trust recorded in ${displayPath(report.trust_file)}`);
  return `${lines.join('\n')}\n`;
}

function run(verb: 'install' | 'uninstall' | 'status', argv: HooksArgs): void {
  const agent = argv.agent as HookAgent;
  const opts = { project: argv.project };
  try {
    const report = verb === 'install' ? installHooks(agent, opts) : verb === 'uninstall' ? uninstallHooks(agent, opts) : hooksStatus(agent, opts);
    out(argv.json ? `${formatJsonLine(report)}\n` : humanText(formatHooksReport(report, verb)));
  } catch (error) {
    // A malformed agent config file is bad input (SPEC §3 has no config-specific code); the
    // message names the file.
    const code = error instanceof HooksConfigError ? 'invalid_params' : 'internal_error';
    process.stderr.write(`${terminalJson({ error: { code, message: (error as Error).message } })}\n`);
    process.exitCode = EXIT.runtime;
  }
}

/** `corral hooks …`. */
export const hooksCommand = defineCommand({
  command: 'hooks <action>',
  describe: "Install, remove or inspect corral's hooks in claude, codex or gemini config",
  builder: (y) =>
    y
      .command({
        command: 'install <agent>',
        describe: 'Add corral hook entries to the agent config (idempotent; keeps your entries)',
        builder: withAgent,
        handler: (argv) => run('install', argv as unknown as HooksArgs),
      })
      .command({
        command: 'uninstall <agent>',
        describe: 'Remove exactly the entries corral added',
        builder: withAgent,
        handler: (argv) => run('uninstall', argv as unknown as HooksArgs),
      })
      .command({
        command: 'status <agent>',
        describe: 'Show per event whether corral hooks are installed (codex: and trusted)',
        builder: withAgent,
        handler: (argv) => run('status', argv as unknown as HooksArgs),
      })
      .demandCommand(1, 'give an action: install, uninstall or status'),
  handler: () => undefined,
});
