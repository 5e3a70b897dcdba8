/** `corral flow run FILE`: a multi-step, multi-agent pipeline (SPEC §10). Timeouts in SECONDS. */
import type { Argv } from 'yargs';
import { formatFlowPlan, parseFlowFile, type FlowPlan } from '../../orchestration/flow-file.js';
import { readPlanFile } from '../../orchestration/load-file.js';
import { RpcStepRunner } from '../../orchestration/flow-runner.js';
import { runScheduler } from '../../orchestration/scheduler.js';
import { formatFlowReport, ProgressView } from '../../orchestration/progress.js';
import { formatJsonLine, humanText } from '../output.js';
import { defineCommand, out, reportError, withClient, type GlobalArgs } from '../run.js';

/** Exit code of a second Ctrl-C, which gives up at once (128 + SIGINT). */
const EXIT_SECOND_INTERRUPT = 130;

function planToJson(plan: FlowPlan) {
  return { flow: plan.name, dry_run: true, layout: plan.layout, on_failure: plan.onFailure, steps: plan.steps };
}

const run = defineCommand({
  command: 'run <file>',
  describe: 'Run a flow file: steps start as soon as their needs are ready; exit 0 all ready, 4 a ready timeout, 1 otherwise',
  builder: (y) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'the flow file (see docs/orchestration.md); its timeout_secs are in SECONDS' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'validate and print the steps in order; contact no server, start nothing' })
      .option('json', { type: 'boolean', default: false, describe: 'print the report {flow, status, steps:[…]} as JSON' })
      .epilog('Timeouts (ready.timeout_secs, [defaults] timeout_secs) are in SECONDS. Ctrl-C stops the flow and leaves its panes running.')
      .example('$0 flow run review.toml', 'run the pipeline, progress on stderr'),
  handler: async (argv) => {
    let plan: FlowPlan;
    try {
      const { source, opts } = readPlanFile(argv.file);
      plan = parseFlowFile(source, opts);
    } catch (error) {
      return reportError(error);
    }
    if (argv.dryRun) {
      out(argv.json ? `${formatJsonLine(planToJson(plan))}\n` : humanText(formatFlowPlan(plan)));
      return;
    }
    const interrupt = new AbortController();
    const onSigint = () => {
      if (interrupt.signal.aborted) process.exit(EXIT_SECOND_INTERRUPT);
      interrupt.abort();
    };
    process.on('SIGINT', onSigint);
    try {
      await withClient(argv, async (client) => {
        const view = new ProgressView(process.stderr, plan.name);
        const { report, exitCode } = await runScheduler({
          plan,
          runner: new RpcStepRunner(client, plan),
          signal: interrupt.signal,
          onChange: (states) => view.update(states),
        });
        view.finish();
        out(argv.json ? `${formatJsonLine(report)}\n` : humanText(formatFlowReport(report)));
        process.exitCode = exitCode;
      });
    } finally {
      process.off('SIGINT', onSigint);
    }
  },
});

/** The `flow` verb group. */
export const flowCommand = defineCommand({
  command: 'flow',
  describe: 'Multi-agent pipelines from TOML files: flow run FILE',
  builder: (y: Argv<GlobalArgs>) => y.command(run).demandCommand(1, 'flow needs a subcommand: run'),
  handler: () => {},
});
