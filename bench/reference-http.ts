/**
 * The Node.js limit: a bare node:http server answering each benchmarked URL
 * with the service's exact bytes, serialized once at start-up.
 */
import { createServer } from 'node:http';
import { readConfig } from './reference-config.js';

const config = readConfig(process.argv[2]);
const answers = new Map<string, { body: Buffer; headers: Record<string, string | number> }>();
for (const r of config.routes) {
  const body = Buffer.from(r.body, 'base64');
  answers.set(r.url, { body, headers: { 'content-type': r.contentType, 'content-length': body.length } });
}

createServer((req, res) => {
  const answer = answers.get(req.url ?? '');
  if (answer === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not a benchmarked URL');
    return;
  }
  res.writeHead(200, answer.headers);
  res.end(answer.body);
}).listen(config.port, config.host);
