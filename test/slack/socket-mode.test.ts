import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HealthRegistry } from '../../src/ops/health.ts';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { startSlackWorld, stopSlackWorld, type Emulator, type HeraldOnSlack } from './herald-on-fake-slack.ts';

describe('Herald on Slack in Socket Mode', () => {
  let fake: FakeSlack;
  let emu: Emulator;
  let herald: HeraldOnSlack;
  let health: HealthRegistry;

  beforeEach(async () => {
    health = new HealthRegistry();
    ({ fake, emu, herald } = await startSlackWorld({ slack: { socketPingIntervalMs: 200 }, mode: 'socket', health }));
    await fake.waitFor(() => fake.socket.openConnections().length === 1);
  });

  afterEach(() => stopSlackWorld({ fake, emu, herald }));

  const answers = () => fake.botMessages().filter((m) => m.stream?.state === 'stopped');

  it('acknowledges a mention over the socket and streams the answer in its thread', async () => {
    const mention = fake.events.appMention({ text: 'over the socket' });
    const delivery = await fake.socket.deliverEvent(mention);
    expect(delivery.acked).toBe(true);
    expect(delivery.ackMs).toBeLessThan(3000);
    const answer = await fake.waitFor(() => answers()[0]);
    expect(answer.thread_ts).toBe(mention.ts);
    expect(answer.text).toBe('Echo: [alice]: over the socket');
  });

  it('answers a redelivered event once', async () => {
    const first = await fake.socket.deliverEvent(fake.events.appMention({ text: 'once' }));
    await fake.socket.deliverEvent(fake.events.appMention({ text: 'once' }), { sameEventIdAs: first, retryAttempt: 1, retryReason: 'timeout' });
    await fake.waitFor(() => answers()[0]);
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.botMessages()).toHaveLength(1);
  });

  it('reconnects after Slack asks it to and after a dropped connection, and keeps answering', async () => {
    fake.socket.requestDisconnect('refresh_requested');
    await fake.waitFor(() => fake.socket.connections.length === 2 && fake.socket.openConnections().length === 1);
    const afterRefresh = await fake.socket.deliverEvent(fake.events.appMention({ text: 'after refresh' }));
    expect(afterRefresh).toMatchObject({ acked: true, connectionId: 2 });
    await fake.waitFor(() => answers().length === 1);

    fake.socket.dropConnections();
    await fake.waitFor(() => fake.socket.connections.length === 3 && fake.socket.openConnections().length === 1, 10_000);
    expect(fake.socket.connections[1]?.closeCode).toBe('dropped');
    const afterDrop = await fake.socket.deliverEvent(fake.events.appMention({ text: 'after drop' }));
    expect(afterDrop).toMatchObject({ acked: true, connectionId: 3 });
    await fake.waitFor(() => answers().length === 2);
    expect(answers()[1]?.text).toBe('Echo: [alice]: after drop');
  });

  it('is ready while its socket is connected, and not once it stopped', async () => {
    expect(await health.readiness()).toMatchObject({ ready: true, checks: [{ name: 'slack', ok: true, critical: true }] });
    await herald.slack.stop();
    expect(await health.readiness()).toMatchObject({ ready: false, checks: [{ name: 'slack', ok: false }] });
  });

  it('runs a slash command: acked over the socket, answered through response_url', async () => {
    const delivery = await fake.socket.sendSlashCommand({ command: '/usage' });
    expect(delivery.acked).toBe(true);
    const post = await fake.waitFor(() => fake.responseUrlPosts[0]);
    expect(post.body).toMatchObject({ response_type: 'ephemeral' });
    expect(String(post.body.text)).toMatch(/^\*You today:\*/);
  });
});
