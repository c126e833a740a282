import { Client, GatewayIntentBits, Partials, type ClientOptions } from 'discord.js';
import type { FakeDiscord } from './fake-discord.ts';

export const DEFAULT_TEST_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
  GatewayIntentBits.GuildVoiceStates,
];

/** A real discord.js client pointed at the fake, logged in and ready. */
export async function readyClient(fake: FakeDiscord, options: Partial<ClientOptions> = {}): Promise<Client> {
  const client = new Client({
    intents: DEFAULT_TEST_INTENTS,
    partials: [Partials.Channel],
    ...options,
    rest: { api: fake.restUrl, cdn: fake.cdnUrl, ...options.rest },
  });
  const ready = new Promise<void>((resolve) => client.once('clientReady', () => resolve()));
  await client.login(fake.token);
  await ready;
  return client;
}
