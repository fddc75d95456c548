/**
 * The Node.js limit: a bare node:http server answering each benchmarked URL
 * with the service's exact bytes, serialized once at start-up.
 *
 * With `sameHeaders` it also sends the service's own headers on that answer
 * (the quota headers, X-Request-Id, the validators, Vary: those of the
 * specification and decisions 18b), written by `writeHead` as the service writes
 * them, and a fresh request id in each answer's header and body
 * (reference-config.ts `answersOf`): the limit of Node.js for the answer the
 * contract requires, so the distance from it is the pipeline's own cost, not
 * the cost of what the answer must say.
 */
import { createServer } from 'node:http';
import { holdTickShape } from '../src/runtime/heap.js';
import { answerFor, answersOf, readConfig } from './reference-config.js';

const config = readConfig(process.argv[2]);
// Holds a tick object as `mds serve` does (src/runtime/heap.ts), so this reference and the service differ only in how they answer.
holdTickShape();
const answers = answersOf(config);

createServer((req, res) => {
  const answer = answerFor(answers, req, res);
  if (answer === undefined) return;
  answer.send(res);
}).listen(config.port, config.host);
