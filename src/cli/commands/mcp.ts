/**
 * `corral mcp` (SPEC §19, docs/mcp.md): corral as an MCP server on stdio for agents, a client of
 * the session's server (the MCP SDK loads only when it runs, through heavy.ts); and `corral mcp
 * config KIND [--write]`, which registers it with an agent.
 */
import type { Argv } from 'yargs';
import { loadMcp } from '../heavy.js';
import { checkMcpKind, mcpConfigFile, mcpLaunch, mcpSnippet, MCP_KINDS, writeMcpConfig } from '../mcp-config.js';
import { defineCommand, out, reportError, socketPathOf, type GlobalArgs } from '../run.js';

const config = defineCommand({
  command: 'config <kind>',
  describe: `Print the snippet that registers \`corral mcp\` with an agent (${MCP_KINDS.join(', ')}); --write merges it into the agent's own config file, keeping what is there`,
  builder: (y) =>
    y
      .positional('kind', { type: 'string', demandOption: true, describe: `the agent: ${MCP_KINDS.join(', ')} (pi has no MCP client)` })
      .option('write', { type: 'boolean', default: false, describe: "merge into the agent's user-wide config file instead of printing" }),
  handler: (argv) => {
    try {
      const kind = checkMcpKind(argv.kind);
      const launch = mcpLaunch({ session: argv.session, socket: argv.socket });
      if (!argv.write) {
        out(`# ${mcpConfigFile(kind)}\n${mcpSnippet(kind, launch)}`);
        return;
      }
      const { file, status } = writeMcpConfig(kind, launch);
      const said = { added: 'registered corral in', updated: 'updated corral\u2019s entry in', present: 'corral is already registered in' }[status];
      out(`${said} ${file}\n`);
    } catch (error) {
      reportError(error);
    }
  },
});

export const mcpCommand = defineCommand({
  command: 'mcp',
  describe: 'Serve corral to an agent over MCP on stdio: fleet, agent_start, agent_prompt, agent_wait, agent_read, pane_read, pane_send, … (`mcp config KIND` registers it)',
  builder: (y: Argv<GlobalArgs>) => y.command(config),
  handler: async (argv) => {
    try {
      // A bad --socket or --session is a usage error before anything loads.
      socketPathOf(argv);
      const { runMcp } = await loadMcp();
      process.exitCode = await runMcp({ socket: argv.socket, session: argv.session });
    } catch (error) {
      reportError(error);
    }
  },
});
