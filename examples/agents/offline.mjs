/**
 * Runs an agent example against the scripted model of fake-model.mjs instead of a real one: load it
 * before the agent (`node --import tsx --import ./offline.mjs agent.ts`) and it serves the script
 * on a loopback port of the agent's own process and points OPENAI_BASE_URL there (with a
 * placeholder OPENAI_API_KEY). Nothing leaves the machine; the answers are the same every run.
 */
import { createServer } from 'node:http';
import { completion } from './fake-model.mjs';

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const reply = (status, body) => {
      // One request per connection: nothing holds the agent's process open once it is done.
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions'))
      return reply(404, {
        error: { message: `the fake model answers POST /v1/chat/completions only, not ${req.method} ${req.url}` },
      });
    try {
      reply(200, completion(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    } catch (e) {
      reply(400, { error: { message: `the fake model could not read the request: ${e.message}` } });
    }
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
server.unref(); // the agent's own work decides when its process ends
process.env.OPENAI_BASE_URL = `http://127.0.0.1:${server.address().port}/v1`;
process.env.OPENAI_API_KEY ??= 'sk-offline-fake-model';
