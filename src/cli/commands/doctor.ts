/** `corral doctor` (SPEC §17): what corral needs on this machine, what is missing and how to get it. */
import { formatDoctorReport, runDoctor } from '../../doctor/doctor.js';
import { EXIT } from '../../contract/protocol.js';
import { formatJsonLine, humanText } from '../output.js';
import { defineCommand, out, reportError } from '../run.js';

export const doctorCommand = defineCommand({
  command: 'doctor',
  describe: 'Check what corral needs here (node, pty, addon, git, ssh, socket dir, config); exit 0 only when all is well',
  builder: (y) => y.option('json', { type: 'boolean', default: false, describe: 'print the report as JSON' }),
  handler: async (argv) => {
    try {
      const report = await runDoctor({ socket: argv.socket, session: argv.session });
      // Paths and messages come from the machine (a config file's text): control characters shown, never acted on.
      out(argv.json ? `${formatJsonLine(report)}\n` : humanText(formatDoctorReport(report)));
      process.exitCode = report.ok ? EXIT.ok : EXIT.runtime;
    } catch (error) {
      reportError(error);
    }
  },
});
