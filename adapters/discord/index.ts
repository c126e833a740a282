export { startDiscord } from './start-discord.ts';
export type { DiscordBot, StartDiscordOptions } from './start-discord.ts';
export { registerCommands } from './register-commands.ts';
export type { RegisteredCommands } from './register-commands.ts';
