import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord, type Json, type MessageRecord } from '../fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { reachable, redisUrl } from '../store/backends.ts';
import { startInstance, type Instance } from './harness.ts';

const TOOLS = fileURLToPath(new URL('../fixtures/tools/approval-tools.mjs', import.meta.url));

type SessionInstance = Instance & { sessionId: string };

function buttons(message: MessageRecord | undefined): string[] {
  return (message?.components ?? []).flatMap((row) => ((row.components as Json[] | undefined) ?? []).map((b) => String(b.label)));
}

const redisUp = await reachable(redisUrl);

// Two processes of one bot (a rolling deploy): the approval waits on one, Discord may deliver the press to the other.
describe.skipIf(!redisUp)(`discord: an approval pressed on the other of two instances sharing Redis at ${redisUrl}`, () => {
  let emu: Emulator;
  let fake: FakeDiscord;
  let waiting: SessionInstance;
  let other: SessionInstance;

  async function startOnRedis(): Promise<SessionInstance> {
    const sessions = fake.gatewayConnections.length;
    const instance = await startInstance({ fake, emu, env: { STORE_URL: redisUrl, TOOLS_MODULE: TOOLS } });
    return Object.assign(instance, { sessionId: fake.gatewayConnections[sessions]!.sessionId! });
  }

  beforeAll(async () => {
    emu = await startEmulator();
    fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
    waiting = await startOnRedis();
    other = await startOnRedis();
  });

  afterAll(async () => {
    for (const { bot, core } of [waiting, other]) {
      await bot.stop();
      await core.close();
    }
    await fake.close();
    await emu.close();
  });

  /** `event` happens while only `instance` hears it at once; the other hears it late (and finds it taken). */
  async function heardFirstBy<T>(instance: SessionInstance, event: () => Promise<T>): Promise<T> {
    const release = fake.lagGatewaySession(instance === waiting ? other.sessionId : waiting.sessionId);
    try {
      return await event();
    } finally {
      release();
    }
  }

  it('reaches the call waiting on the first instance; a message the other took meanwhile waits its turn, shown queued', async () => {
    const dm = fake.dmChannel.id;
    const bot = () => fake.messages(dm).filter((m) => m.authorId === fake.botUser.id && !m.deleted);
    const approval = await heardFirstBy(waiting, async () => {
      fake.sendMessage({ channelId: dm, content: 'call post_note {"text":"from afar"}' });
      return fake.waitFor(() => bot().find((m) => buttons(m).includes('Approve')));
    });
    const second = await heardFirstBy(other, async () => {
      const sent = fake.sendMessage({ channelId: dm, content: 'and the history' });
      await fake.waitFor(() => bot().find((m) => m.reference?.messageId === sent.id && m.content.startsWith('⏳')), {
        description: 'the queued note from the other instance',
      });
      return sent;
    });
    expect(emu.requests.some((r) => JSON.stringify(r.body).includes('and the history'))).toBe(false);

    await heardFirstBy(other, async () => {
      const press = fake.pressButton({ messageId: approval.id, button: 'Approve' });
      await fake.waitFor(() => press.responseType !== null);
    });
    await waiting.repliesFinished(1);
    await other.repliesFinished(1);
    expect(fake.message(approval.id)!.content).toMatch(/^✅ Approved/);
    expect(buttons(fake.message(approval.id))).toEqual([]);
    const [first, then] = bot().filter((m) => m.id !== approval.id);
    expect(first!.content).toContain('post_note: posted from afar');
    expect(then!.reference?.messageId).toBe(second.id);
    expect(then!.content).toContain('assistant: Tool results:\n- post_note: posted from afar');
  });
});
