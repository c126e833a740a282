import type { Env } from '../../src/config/config.ts';
import { startFakeDiscord, type FakeDiscord, type Json, type MessageRecord } from '../fakes/discord/index.ts';
import { startEmulator, type Emulator } from '../fakes/service/emulator.ts';
import { redisUrl } from '../store/backends.ts';
import { startInstance, type Instance } from './harness.ts';

/** An instance with its gateway session on the fake. */
export type SessionInstance = Instance & { sessionId: string };

/**
 * Two processes of one bot on one shard sharing Redis (a rolling deploy): Discord sends both every event, and a
 * lagging gateway session decides which one hears an event first.
 */
export interface TwoInstances {
  emu: Emulator;
  fake: FakeDiscord;
  first: SessionInstance;
  second: SessionInstance;
  /** `event` happens while only `instance` hears it at once; the other hears it late (and finds it taken). */
  heardFirstBy<T>(instance: SessionInstance, event: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startTwoInstances(env: Env = {}): Promise<TwoInstances> {
  const emu = await startEmulator();
  const fake = await startFakeDiscord({ heartbeatIntervalMs: 1000 });
  const startOnRedis = async (): Promise<SessionInstance> => {
    const sessions = fake.gatewayConnections.length;
    const instance = await startInstance({ fake, emu, env: { STORE_URL: redisUrl, ...env } });
    return Object.assign(instance, { sessionId: fake.gatewayConnections[sessions]!.sessionId! });
  };
  const first = await startOnRedis();
  const second = await startOnRedis();
  return {
    emu,
    fake,
    first,
    second,
    async heardFirstBy(instance, event) {
      const release = fake.lagGatewaySession(instance === first ? second.sessionId : first.sessionId);
      try {
        return await event();
      } finally {
        release();
      }
    },
    async close() {
      for (const { bot, core } of [first, second]) {
        await bot.stop();
        await core.close();
      }
      await fake.close();
      await emu.close();
    },
  };
}

/** The labels of a message's buttons, as a user sees them. */
export function buttons(message: MessageRecord | undefined): string[] {
  return (message?.components ?? []).flatMap((row) => ((row.components as Json[] | undefined) ?? []).map((b) => String(b.label)));
}
