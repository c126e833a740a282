import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { VoiceCloseCode, VoiceOp, startFakeVoiceServer, type FakeVoiceServer } from './index.ts';

let server: FakeVoiceServer | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.terminate();
  await server?.close();
  server = undefined;
});

interface Payload {
  op: number;
  d: Record<string, unknown> | null;
  seq?: number;
}

/** A bare voice websocket client, to hit protocol paths @discordjs/voice never takes. */
function open(fake: FakeVoiceServer, version = '8') {
  const socket = new WebSocket(`wss://${fake.endpoint}?v=${version}`);
  sockets.push(socket);
  const inbox: Payload[] = [];
  const waiting: ((payload: Payload) => void)[] = [];
  socket.on('message', (data, binary) => {
    if (binary) return;
    const payload = JSON.parse(data.toString()) as Payload;
    const waiter = waiting.shift();
    if (waiter) waiter(payload);
    else inbox.push(payload);
  });
  return {
    send: (payload: unknown) => socket.send(JSON.stringify(payload)),
    next: () =>
      new Promise<Payload>((resolve) => {
        const queued = inbox.shift();
        if (queued) resolve(queued);
        else waiting.push(resolve);
      }),
    closed: new Promise<number>((resolve) => socket.on('close', (code) => resolve(code))),
    failed: new Promise<number | undefined>((resolve) => {
      socket.on('unexpected-response', (_request, response) => resolve(response.statusCode));
      socket.on('error', () => undefined);
    }),
  };
}

const identify = (fake: FakeVoiceServer, overrides: Record<string, unknown> = {}) => ({
  op: VoiceOp.Identify,
  d: {
    server_id: fake.guildId,
    user_id: fake.userId,
    session_id: fake.sessionId,
    token: fake.token,
    max_dave_protocol_version: 1,
    ...overrides,
  },
});

describe('voice gateway protocol', () => {
  it('says Hello, acknowledges v8 heartbeats with their nonce, and answers Identify with Ready', async () => {
    server = await startFakeVoiceServer({ heartbeatIntervalMs: 5_000 });
    const client = open(server);
    expect(await client.next()).toEqual({ op: VoiceOp.Hello, d: { heartbeat_interval: 5_000 } });
    client.send({ op: VoiceOp.Heartbeat, d: { t: 1_501_184_119_561, seq_ack: -1 } });
    expect(await client.next()).toEqual({ op: VoiceOp.HeartbeatAck, d: { t: 1_501_184_119_561 } });
    client.send(identify(server));
    const ready = await client.next();
    expect(ready).toEqual({
      op: VoiceOp.Ready,
      d: {
        ssrc: server.session()!.ssrc,
        ip: '127.0.0.1',
        port: server.udpPort,
        modes: ['aead_aes256_gcm_rtpsize', 'aead_xchacha20_poly1305_rtpsize'],
      },
    });
  });

  it('answers UDP IP discovery with the address and port it saw', async () => {
    server = await startFakeVoiceServer();
    const client = open(server);
    await client.next();
    client.send(identify(server));
    const ssrc = (await client.next()).d!.ssrc as number;
    const udp = createSocket('udp4');
    try {
      await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
      const request = Buffer.alloc(74);
      request.writeUInt16BE(1, 0);
      request.writeUInt16BE(70, 2);
      request.writeUInt32BE(ssrc, 4);
      const response = new Promise<Buffer>((resolve) => udp.once('message', resolve));
      udp.send(request, server.udpPort, '127.0.0.1');
      const reply = await response;
      expect(reply.length).toBe(74);
      expect([reply.readUInt16BE(0), reply.readUInt16BE(2), reply.readUInt32BE(4)]).toEqual([2, 70, ssrc]);
      expect(reply.subarray(8, reply.indexOf(0, 8)).toString()).toBe('127.0.0.1');
      expect(reply.readUInt16BE(72)).toBe((udp.address() as AddressInfo).port);
    } finally {
      udp.close();
    }
  });

  it.each([
    ['a wrong token', { token: 'nope' }, VoiceCloseCode.AuthenticationFailed],
    ['an unknown server', { server_id: '1' }, VoiceCloseCode.ServerNotFound],
    ['no DAVE support', { max_dave_protocol_version: undefined }, VoiceCloseCode.DaveProtocolRequired],
  ])('closes an Identify with %s', async (_what, overrides, code) => {
    server = await startFakeVoiceServer();
    const client = open(server);
    await client.next();
    client.send(identify(server, overrides));
    expect(await client.closed).toBe(code);
  });

  it('closes a client that selects a protocol before identifying, and refuses a Resume of an unknown session', async () => {
    server = await startFakeVoiceServer();
    const early = open(server);
    await early.next();
    early.send({ op: VoiceOp.SelectProtocol, d: { protocol: 'udp', data: { address: '127.0.0.1', port: 1, mode: 'aead_aes256_gcm_rtpsize' } } });
    expect(await early.closed).toBe(VoiceCloseCode.NotAuthenticated);

    const stranger = open(server);
    await stranger.next();
    stranger.send({ op: VoiceOp.Resume, d: { server_id: server.guildId, session_id: 'gone', token: server.token, seq_ack: 3 } });
    expect(await stranger.closed).toBe(VoiceCloseCode.SessionNoLongerValid);
  });

  it('rejects a websocket without ?v=8', async () => {
    server = await startFakeVoiceServer();
    expect(await open(server, '4').failed).toBe(400);
  });
});
