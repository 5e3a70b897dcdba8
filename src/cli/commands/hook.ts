/**
 * `corral hook <event>`: what an agent's hook config runs (SPEC §4). Reads the hook JSON on
 * stdin, sends one `ai.<event>` notification for $CORRAL_PANE_ID, and always exits 0 with no
 * output within a second — whatever the input, the arguments or the server's state — since
 * a failing or slow hook shows up as an error or a stall in the agent.
 */
import { AI_EVENTS, HOOK_AGENTS, type HookAgent, parseAiEvent } from '../../agents/hook-events.js';
import { runHook } from '../hooks/hook-send.js';
import { defineCommand } from '../run.js';

/** `corral hook <event>`. */
export const hookCommand = defineCommand({
  command: 'hook [event]',
  describe: `Forward an agent hook (JSON on stdin) to the server as ai.<event>; always exits 0 (events: ${AI_EVENTS.join(', ')})`,
  builder: (y) =>
    y
      .positional('event', { type: 'string', describe: 'corral event, e.g. stop, tool_use' })
      .option('agent', { type: 'string', describe: `which agent's payload this is (${HOOK_AGENTS.join('|')})` })
      .option('code', { type: 'number', describe: 'exit code, for `hook exit`' })
      // A hook must never fail on its arguments: a newer config may pass options this version lacks.
      .strict(false),
  handler: async (argv) => {
    const event = parseAiEvent(String(argv.event));
    const agent = (HOOK_AGENTS as readonly string[]).includes(String(argv.agent)) ? (argv.agent as HookAgent) : undefined;
    if (event !== undefined) {
      await runHook({ event, agent, exitCode: Number.isFinite(argv.code) ? argv.code : undefined });
    }
    // Leave now: a socket or stdin still open after the deadline must not keep the agent waiting.
    process.exit(0);
  },
});
