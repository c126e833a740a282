import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from './state.ts';

export function sendJson(res: ServerResponse, record: RecordedRequest, status: number, body: unknown, headers: Record<string, string> = {}): void {
  record.status = status;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function sendRaw(res: ServerResponse, record: RecordedRequest, status: number, body: string, headers: Record<string, string>): void {
  record.status = status;
  res.writeHead(status, headers);
  res.end(body);
}
