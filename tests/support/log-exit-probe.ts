import { createLogger } from '../../engine/core/logger';

/**
 * Writes three lines through the engine's logger on standard output, then ends in the same turn of
 * the event loop, before the held lines' write: `exit` by process.exit(3), `throw` by an uncaught error.
 */
const log = createLogger('info');
for (const n of [1, 2, 3]) log({ level: n === 3 ? 'fatal' : 'info', msg: `line ${n}` });
if (process.argv[2] === 'throw') throw new Error('uncaught on purpose');
process.exit(3);
