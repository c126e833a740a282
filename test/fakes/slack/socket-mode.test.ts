import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSocketApp } from './bolt-harness.ts';
import type { RunningApp } from './bolt-harness.ts';
import { startFakeSlack } from './index.ts';
import type { FakeSlack } from './index.ts';

describe('Socket Mode with a real Bolt app', () => {
  let fake: FakeSlack;
  let running: RunningApp | undefined;

  beforeEach(async () => {
    fake = await startFakeSlack({ socketPingIntervalMs: 200 });
    running = await startSocketApp(fake, (app) => {
      app.event('app_mention', async ({ event, say }) => {
        await say({ text: `heard: ${event.text}`, thread_ts: event.ts });
      });
      app.command('/herald', async ({ command, ack }) => {
        await ack({ response_type: 'ephemeral', text: `working on ${command.text}` });
      });
    });
  });

  afterEach(async () => {
    await running?.stop();
    await fake.close();
  });

  const botReplies = (): number => fake.botMessages(fake.channelId).length;

  it('opens the connection with the app token and is greeted with hello', async () => {
    const open = fake.calls('apps.connections.open');
    expect(open).toHaveLength(1);
    expect(open[0]?.token).toBe(fake.appToken);
    expect(String(open[0]?.response.url)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=/);
    expect(fake.socket.openConnections()).toHaveLength(1);
  });

  it('delivers an event, records the ack, and the reply is posted', async () => {
    const mention = fake.events.appMention({ text: 'over the socket' });
    const delivery = await fake.socket.deliverEvent(mention);
    expect(delivery.acked).toBe(true);
    expect(delivery.ackMs).toBeLessThan(3000);
    expect(delivery.envelope).toMatchObject({ type: 'events_api', accepts_response_payload: false, retry_attempt: 0 });
    const reply = await fake.waitForMessage(fake.channelId, (m) => m.user === fake.botUserId);
    expect(reply.text).toContain('heard:');
    expect(reply.thread_ts).toBe(mention.ts);
  });

  it('reconnects after a refresh_requested disconnect and keeps receiving events', async () => {
    fake.socket.requestDisconnect('refresh_requested');
    await fake.waitFor(() => fake.calls('apps.connections.open').length === 2 && fake.socket.openConnections().length === 1);
    expect(fake.socket.connections[0]?.closedAt).toBeDefined();
    const delivery = await fake.socket.deliverEvent(fake.events.appMention({ text: 'after refresh' }));
    expect(delivery.acked).toBe(true);
    expect(delivery.connectionId).toBe(2);
    await fake.waitFor(() => botReplies() === 1);
  });

  it('reconnects after the connection is dropped without a close frame', async () => {
    fake.socket.dropConnections();
    await fake.waitFor(() => fake.socket.connections.length === 2 && fake.socket.openConnections().length === 1);
    expect(fake.socket.connections[0]?.closeCode).toBe('dropped');
    const delivery = await fake.socket.deliverEvent(fake.events.appMention({ text: 'after drop' }));
    expect(delivery.acked).toBe(true);
    await fake.waitFor(() => botReplies() === 1);
  });

  it('keeps the connection alive with pings both ways', async () => {
    await fake.waitFor(() => {
      const connection = fake.socket.connections[0];
      return connection && connection.pongsFromClient >= 2 && connection.pingsFromClient >= 2;
    });
    expect(fake.socket.openConnections()).toHaveLength(1);
  });

  it('a slash command ack carries the response payload', async () => {
    const delivery = await fake.socket.sendSlashCommand({ command: '/herald', text: 'the report' });
    expect(delivery.acked).toBe(true);
    expect(delivery.envelope.accepts_response_payload).toBe(true);
    expect(delivery.ackPayload).toMatchObject({ response_type: 'ephemeral', text: 'working on the report' });
  });

  it('a delivery with no open connection fails once the connect wait runs out', async () => {
    await running?.stop();
    running = undefined;
    await fake.waitFor(() => fake.socket.openConnections().length === 0);
    await expect(fake.socket.deliverEvent(fake.events.appMention({ text: 'x' }), { connectTimeoutMs: 50 })).rejects.toThrow(
      /no Socket Mode connection/,
    );
  });
});

describe('Socket Mode endpoint with a bare WebSocket client', () => {
  it('sends hello, reports an unacknowledged envelope, and refuses a reused ticket', async () => {
    const fake = await startFakeSlack();
    try {
      const open = await fetch(`${fake.apiUrl}apps.connections.open`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.appToken}` },
      });
      const { url } = (await open.json()) as { url: string };
      const frames: unknown[] = [];
      const socket = new WebSocket(url);
      socket.addEventListener('message', (e) => frames.push(JSON.parse(String(e.data))));
      await fake.waitFor(() => frames.length > 0);
      expect(frames[0]).toMatchObject({ type: 'hello', num_connections: 1, connection_info: { app_id: fake.appId } });

      const delivery = await fake.socket.deliverEvent({ type: 'reaction_added', reaction: 'eyes' }, { ackTimeoutMs: 100 });
      expect(delivery.acked).toBe(false);
      expect(frames[1]).toMatchObject({ envelope_id: delivery.envelopeId, type: 'events_api' });

      const reused = new WebSocket(url);
      const outcome = await new Promise<string>((resolve) => {
        reused.addEventListener('open', () => resolve('open'));
        reused.addEventListener('error', () => resolve('refused'));
      });
      expect(outcome).toBe('refused');
      socket.close();
    } finally {
      await fake.close();
    }
  });
});
