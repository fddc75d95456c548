/**
 * The Node.js limit: a bare node:http server answering the benchmarked URL
 * with the service's exact bytes; with `sameHeaders`, also every header the
 * service sent and a fresh request id in each answer (reference-config.ts
 * `answerOf`): Node's limit for the answer the contract requires, so the
 * distance from it is the pipeline's own cost.
 */
import { createServer } from 'node:http';
import { holdTickShape } from '../src/runtime/heap.js';
import { answerOf, isRoute, readConfig } from './reference-config.js';

const config = readConfig(process.argv[2]);
// Holds a tick object as `mds serve` does (src/runtime/heap.ts): the two then differ only in how they answer.
holdTickShape();
const send = answerOf(config.route, config.sameHeaders === true);
createServer((req, res) => isRoute(config.route, req, res) && send(res)).listen(config.port, config.host);
