import type { WebSearchMode } from '../src/config/config.ts';
import type { ConversationSettings, SettingsPatch } from '../src/conversation/types.ts';
import { stringOption, type CommandDefinition } from './command.ts';

const ON_OFF_DEFAULT = [
  { name: 'on', value: 'on' },
  { name: 'off', value: 'off' },
  { name: 'default', value: 'default' },
] as const;

const SEARCH_MODES = [
  { name: 'off', value: 'off' },
  { name: 'auto (the model decides)', value: 'auto' },
  { name: 'force', value: 'force' },
  { name: 'default', value: 'default' },
] as const;

function describeSettings(where: string, settings: ConversationSettings): string {
  const shown = [
    `thinking: ${settings.thinking === undefined ? 'default' : settings.thinking ? 'on' : 'off'}`,
    `web search: ${settings.webSearch ?? 'default'}`,
    `persona: ${settings.persona ? `“${settings.persona}”` : 'default'}`,
  ];
  return `Settings for ${where} — ${shown.join(' · ')}`;
}

export const settings: CommandDefinition = {
  name: 'settings',
  description: 'Show or change how Herald behaves here (administrators only)',
  adminOnly: true,
  ephemeral: true,
  options: [
    {
      name: 'scope',
      description: 'This channel only, or the whole server (default)',
      type: 'string',
      choices: [
        { name: 'server', value: 'server' },
        { name: 'channel', value: 'channel' },
      ],
    },
    { name: 'thinking', description: 'Thinking mode', type: 'string', choices: ON_OFF_DEFAULT },
    { name: 'web_search', description: 'Web search mode', type: 'string', choices: SEARCH_MODES },
    { name: 'persona', description: 'Who Herald is here ("default" to reset)', type: 'string', maxLength: 1000 },
  ],
  async run(ctx, { engine }) {
    const channelScope = stringOption(ctx, 'scope') === 'channel' || ctx.workspaceId === undefined;
    const scope = { platform: ctx.platform, workspaceId: ctx.workspaceId, ...(channelScope && { channelId: ctx.channelId }) };
    const where = channelScope ? 'this channel' : 'this server';
    const patch: SettingsPatch = {};
    const thinking = stringOption(ctx, 'thinking');
    if (thinking) patch.thinking = thinking === 'default' ? null : thinking === 'on';
    const search = stringOption(ctx, 'web_search');
    if (search) patch.webSearch = search === 'default' ? null : (search as WebSearchMode);
    const persona = stringOption(ctx, 'persona');
    if (persona) patch.persona = persona.trim().toLowerCase() === 'default' ? null : persona;
    if (Object.keys(patch).length === 0) {
      await ctx.reply(describeSettings(where, await engine.getSettings(scope)), { ephemeral: true });
      return;
    }
    try {
      const updated = await engine.updateSettings(scope, patch);
      await ctx.reply(`Saved. ${describeSettings(where, updated)}`, { ephemeral: true });
    } catch (error) {
      if (error instanceof RangeError) return ctx.reply(error.message, { ephemeral: true });
      throw error;
    }
  },
};
