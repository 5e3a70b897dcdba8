/** Conductor overview verbs: `ps`, `ls`, `status` (SPEC §6). Human text, or the bare result with --json. */
import { formatFleet, formatStatus, formatSurfaces } from '../conductor-format.js';
import { jsonOption, targetPositional } from '../options.js';
import { conductorCall, defineCommand } from '../run.js';

/** `corral ps`. */
export const psCommand = defineCommand({
  command: 'ps',
  describe: 'List the agents running in any pane',
  builder: (y) => y.option('json', jsonOption),
  handler: (argv) => conductorCall(argv, 'fleet.list', () => ({}), formatFleet),
});

/** `corral ls`. */
export const lsCommand = defineCommand({
  command: 'ls',
  describe: 'List panes (* marks the focused one)',
  builder: (y) =>
    y.option('workspace', { type: 'string', describe: 'only panes of this workspace' }).option('json', jsonOption),
  handler: (argv) =>
    conductorCall(argv, 'surface.list', () => ({ workspace: argv.workspace }), formatSurfaces),
});

/** `corral status <target>`. */
export const statusCommand = defineCommand({
  command: 'status <target>',
  describe: 'Show the agent state of one pane (a pane without an agent is idle)',
  builder: (y) => y.positional('target', targetPositional).option('json', jsonOption),
  handler: (argv) => conductorCall(argv, 'surface.status', () => ({ target: argv.target }), formatStatus),
});
