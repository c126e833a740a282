import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../bench/load/round-robin-proxy.ts';

const servers: Server[] = [];
let proxy: RoundRobinProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** An upstream that answers every request with its name and echoes the body. */
async function upstream(name: string): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${name} ${req.method} ${req.url} ${body}`));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nothing listens on any more. */
async function deadUpstream(): Promise<string> {
  const url = await upstream('dead');
  const server = servers.pop()!;
  await new Promise((resolve) => server.close(resolve));
  return url;
}

async function post(path: string, body: string): Promise<{ status: number; servedBy: string | null; text: string }> {
  const response = await fetch(`${proxy!.url}${path}`, { method: 'POST', body });
  return { status: response.status, servedBy: response.headers.get('x-served-by'), text: await response.text() };
}

it('hands requests to each upstream in turn, body and path intact, saying which served it', async () => {
  proxy = await startRoundRobinProxy([await upstream('a'), await upstream('b')]);
  const answers = [await post('/slack/events', 'one'), await post('/slack/events', 'two'), await post('/x', 'three')];
  expect(answers).toEqual([
    { status: 200, servedBy: '0', text: 'a POST /slack/events one' },
    { status: 200, servedBy: '1', text: 'b POST /slack/events two' },
    { status: 200, servedBy: '0', text: 'a POST /x three' },
  ]);
});

it('answers 502 for an upstream that refuses the connection, then passes over it', async () => {
  proxy = await startRoundRobinProxy([await upstream('a'), await deadUpstream(), await upstream('c')]);
  const statuses = [];
  for (const body of ['1', '2', '3', '4', '5']) {
    const answer = await post('/', body);
    statuses.push([answer.status, answer.servedBy]);
  }
  expect(statuses).toEqual([
    [200, '0'],
    [502, '1'],
    [200, '2'],
    [200, '0'],
    [200, '2'],
  ]);
  expect(proxy.failed).toEqual([0, 1, 0]);
});
