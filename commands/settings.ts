import type { WebSearchMode } from '../src/config/config.ts';
import { isAllowedModel } from '../src/conversation/settings.ts';
import type { ConversationSettings, SettingsPatch } from '../src/conversation/types.ts';
import { integerOption, stringOption, type CommandDefinition } from './command.ts';
import { VOICE_CHOICES, voiceId } from './say.ts';

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

const onOff = (value: boolean | undefined) => (value === undefined ? 'default' : value ? 'on' : 'off');

export function describeSettings(where: string, settings: ConversationSettings): string {
  const shown = [
    `thinking: ${onOff(settings.thinking)}`,
    `web search: ${settings.webSearch ?? 'default'}`,
    `model: ${settings.model ?? 'default'}`,
    `voice: ${settings.voice ?? 'default'}`,
    `requests per user per minute: ${settings.userRequestsPerMinute ?? 'default'}`,
    `tokens per user per day: ${settings.userDailyTokens ?? 'default'}`,
    `persona: ${settings.persona ? `“${settings.persona}”` : 'default'}`,
  ];
  // Who may call Herald how: listed once chosen, as most places keep the defaults.
  const chosen = [
    settings.memberPersonas !== undefined && `member personas: ${onOff(settings.memberPersonas)}`,
    settings.answerAll !== undefined && `answer every message: ${onOff(settings.answerAll)}`,
    settings.autoThread !== undefined && `thread per mention: ${onOff(settings.autoThread)}`,
    settings.triggerWords && `trigger words: ${settings.triggerWords.map((word) => `“${word}”`).join(', ')}`,
    settings.statusReactions !== undefined && `status reactions: ${onOff(settings.statusReactions)}`,
    settings.mcpOff && `MCP servers off: ${settings.mcpOff.join(', ')}`,
    settings.voiceListening !== undefined && `listening in voice: ${onOff(settings.voiceListening)}`,
    settings.voiceName !== undefined && `name in voice: “${settings.voiceName}”`,
  ].filter((line) => typeof line === 'string');
  return `Settings for ${where} — ${[...shown, ...chosen].join(' · ')}`;
}

/** A choice of ON_OFF_DEFAULT as a patch value: true, false, or null to clear. */
function switchOf(choice: string | undefined): boolean | null | undefined {
  return choice === undefined ? undefined : choice === 'default' ? null : choice === 'on';
}

/** "herald, hey herald" as ["herald", "hey herald"]; "none" clears the list. */
function triggerWords(text: string | undefined): string[] | null | undefined {
  if (text === undefined) return undefined;
  if (/^\s*(none|default)\s*$/i.test(text)) return null;
  return text.split(',').filter((word) => word.trim() !== '');
}

/** "github, jira" as ["github", "jira"]; "none" clears the list. */
function serverNames(text: string | undefined): string[] | null | undefined {
  if (text === undefined) return undefined;
  if (/^\s*(none|default)\s*$/i.test(text)) return null;
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** 0 clears a limit (back to the operator's); any other number must be positive. */
function limit(value: number | undefined): number | null | undefined {
  return value === undefined ? undefined : value === 0 ? null : value;
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
    { name: 'model', description: 'Chat model for text here ("default" to reset)', type: 'string', maxLength: 100 },
    { name: 'voice', description: 'Default voice of /say here', type: 'string', choices: VOICE_CHOICES },
    { name: 'user_requests_per_minute', description: 'Stricter limit per user (0: the default)', type: 'integer', minValue: 0, maxValue: 1000 },
    { name: 'user_daily_tokens', description: 'Stricter daily token budget per user (0: the default)', type: 'integer', minValue: 0 },
    { name: 'persona', description: 'Who Herald is here ("default" to reset)', type: 'string', maxLength: 1000 },
    {
      name: 'member_personas',
      description: 'Let any member set a persona for their own conversation (/persona)',
      type: 'string',
      choices: ON_OFF_DEFAULT,
    },
    { name: 'answer_all', description: 'Answer every message here without a mention', type: 'string', choices: ON_OFF_DEFAULT },
    {
      name: 'auto_thread',
      description: 'Discord: open a thread for each mention and go on there without mentions',
      type: 'string',
      choices: ON_OFF_DEFAULT,
    },
    {
      name: 'trigger_words',
      description: 'Words that call Herald at the start of a message, e.g. "herald, hey herald" ("none" to clear)',
      type: 'string',
      maxLength: 400,
    },
    {
      name: 'status_reactions',
      description: 'React 👀 to a question, then ✅ when answered or ⚠️ when it failed',
      type: 'string',
      choices: ON_OFF_DEFAULT,
    },
    {
      name: 'mcp_off',
      description: 'MCP tool servers not to use here, e.g. "github, jira" ("none" to clear)',
      type: 'string',
      maxLength: 400,
    },
    {
      name: 'voice_listening',
      description: 'Let /talk listen in voice channels (what people say goes to the AI service)',
      type: 'string',
      choices: ON_OFF_DEFAULT,
    },
    { name: 'voice_name', description: 'The name Herald answers to in voice channels ("default": Herald)', type: 'string', maxLength: 40 },
  ],
  async run(ctx, services) {
    const { engine } = services;
    const channelScope = stringOption(ctx, 'scope') === 'channel' || ctx.workspaceId === undefined;
    const scope = { platform: ctx.platform, workspaceId: ctx.workspaceId, ...(channelScope && { channelId: ctx.channelId }) };
    const where = channelScope ? 'this channel' : 'this server';
    const patch: SettingsPatch = {};
    const switches = {
      thinking: 'thinking',
      memberPersonas: 'member_personas',
      answerAll: 'answer_all',
      autoThread: 'auto_thread',
      statusReactions: 'status_reactions',
      voiceListening: 'voice_listening',
    } as const;
    for (const [field, option] of Object.entries(switches)) {
      const value = switchOf(stringOption(ctx, option));
      if (value !== undefined) patch[field as keyof typeof switches] = value;
    }
    const words = triggerWords(stringOption(ctx, 'trigger_words'));
    if (words !== undefined) patch.triggerWords = words;
    const mcpOff = serverNames(stringOption(ctx, 'mcp_off'));
    if (mcpOff) {
      const known = services.config.mcpServers.map((server) => server.name);
      const unknown = mcpOff.filter((name) => !known.includes(name));
      if (unknown.length > 0) {
        const offer = known.length > 0 ? `The servers configured are: ${known.join(', ')}.` : 'No MCP servers are configured.';
        return ctx.reply(`"${unknown[0]!.slice(0, 40)}" is not an MCP server Herald knows. ${offer}`, { ephemeral: true });
      }
    }
    if (mcpOff !== undefined) patch.mcpOff = mcpOff;
    const search = stringOption(ctx, 'web_search');
    if (search) patch.webSearch = search === 'default' ? null : (search as WebSearchMode);
    const model = stringOption(ctx, 'model')?.trim();
    if (model) {
      if (model.toLowerCase() === 'default') patch.model = null;
      else if (isAllowedModel(model, services.config)) patch.model = model;
      else
        return ctx.reply(
          `"${model.slice(0, 100)}" is not a model Herald may use here. Choose one of: ${services.config.models.chatAllowed.join(', ')}.`,
          { ephemeral: true },
        );
    }
    const voice = stringOption(ctx, 'voice');
    if (voice) patch.voice = voice === 'default' ? null : voiceId(voice, services);
    const perMinute = limit(integerOption(ctx, 'user_requests_per_minute'));
    if (perMinute !== undefined) patch.userRequestsPerMinute = perMinute;
    const daily = limit(integerOption(ctx, 'user_daily_tokens'));
    if (daily !== undefined) patch.userDailyTokens = daily;
    const voiceName = stringOption(ctx, 'voice_name');
    if (voiceName) patch.voiceName = voiceName.trim().toLowerCase() === 'default' ? null : voiceName;
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
