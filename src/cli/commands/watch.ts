/** `corral watch`: the event stream as NDJSON on stdout until killed or the server goes away (SPEC §7). */
import { EVENT_NOTIFICATION } from '../../contract/protocol.js';
import { formatJsonLine } from '../output.js';
import { defineCommand, FROM_FLAGS, out, withClient } from '../run.js';

/** `corral watch`. */
export const watchCommand = defineCommand({
  command: 'watch',
  describe: 'Stream events as one JSON object per line ({"type":"subscribed"} first) until interrupted',
  builder: (y) =>
    y
      .option('surface', { type: 'string', array: true, describe: 'only events of panes this selector matches (repeatable)' })
      .option('type', { type: 'string', array: true, describe: 'only events of this type, e.g. ai.stop, surface_changed (repeatable)' }),
  handler: (argv) =>
    withClient(argv, async (client) => {
      // `watch | head -n 1` closes stdout early: out() then ends the CLI quietly (closed-pipe.ts).
      const ended = new Promise<void>((resolve) => client.onClose(() => resolve()));
      // Events that race ahead of the subscribe reply wait, so `subscribed` is always line one.
      let early: unknown[] | undefined = [];
      client.onNotification((method, params) => {
        if (method !== EVENT_NOTIFICATION) return;
        if (early) early.push(params);
        else out(`${formatJsonLine(params)}\n`);
      });
      const subscribed = await client.call('events.subscribe', { surfaces: argv.surface, types: argv.type });
      out(`${formatJsonLine(subscribed)}\n`);
      for (const params of early) out(`${formatJsonLine(params)}\n`);
      early = undefined;
      await ended;
    }, FROM_FLAGS),
});
