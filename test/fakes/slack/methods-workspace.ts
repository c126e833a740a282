import { jsonArg } from './blocks.ts';
import { boolArg, fail, missingArgument, stringArg } from './method-types.ts';
import type { MethodCall, MethodSpec, Outcome } from './method-types.ts';
import type { AssistantThreadState, Json } from './state.ts';

function authTest({ core }: MethodCall): Json {
  const { identity } = core.ws;
  return {
    ok: true,
    url: `https://${identity.teamDomain}.slack.com/`,
    team: identity.teamName,
    user: identity.botName,
    team_id: identity.teamId,
    user_id: identity.botUserId,
    bot_id: identity.botId,
    is_enterprise_install: false,
  };
}

function connectionsOpen({ core }: MethodCall): Json {
  return { ok: true, url: core.issueSocketUrl() };
}

function usersInfo({ core, args }: MethodCall): Json {
  const id = stringArg(args, 'user');
  if (!id) return missingArgument('user');
  const found = core.ws.users.get(id);
  if (!found) return fail('user_not_found');
  const { locale = 'en-US', ...user } = found;
  return { ok: true, user: boolArg(args, 'include_locale') ? { ...user, locale } : user };
}

function botsInfo({ core, args }: MethodCall): Json {
  const { identity } = core.ws;
  const id = stringArg(args, 'bot');
  if (id !== undefined && id !== identity.botId) return fail('bot_not_found');
  return {
    ok: true,
    bot: {
      id: identity.botId,
      deleted: false,
      name: identity.botName,
      updated: 1700000000,
      app_id: identity.appId,
      user_id: identity.botUserId,
      icons: { image_36: 'https://avatars.example.invalid/bot_36.png', image_48: 'https://avatars.example.invalid/bot_48.png' },
    },
  };
}

function teamInfo({ core }: MethodCall): Json {
  const { identity } = core.ws;
  return {
    ok: true,
    team: {
      id: identity.teamId,
      name: identity.teamName,
      url: `https://${identity.teamDomain}.slack.com/`,
      domain: identity.teamDomain,
      email_domain: '',
      icon: { image_default: true, image_34: 'https://avatars.example.invalid/team_34.png' },
      is_verified: false,
    },
  };
}

const EMOJI_NAME = /^[a-z0-9_+'-]+(::skin-tone-[2-6])?$/;
const MAX_DISTINCT_REACTIONS = 23;

function reaction(add: boolean) {
  return ({ core, args }: MethodCall): Json => {
    const channelId = stringArg(args, 'channel');
    const ts = stringArg(args, 'timestamp');
    if (!channelId || !ts) return fail('no_item_specified');
    const name = stringArg(args, 'name');
    if (!name || !EMOJI_NAME.test(name)) return fail('invalid_name');
    if (!core.ws.channels.has(channelId)) return fail('channel_not_found');
    const message = core.ws.findMessage(channelId, ts);
    if (!message) return fail('message_not_found');
    const bot = core.ws.identity.botUserId;
    const existing = message.reactions.find((r) => r.name === name);
    if (add) {
      if (existing?.users.includes(bot)) return fail('already_reacted');
      if (existing) existing.users.push(bot);
      else if (message.reactions.length >= MAX_DISTINCT_REACTIONS) return fail('too_many_emoji');
      else message.reactions.push({ name, users: [bot] });
    } else {
      if (!existing?.users.includes(bot)) return fail('no_reaction');
      existing.users = existing.users.filter((u) => u !== bot);
      if (existing.users.length === 0) message.reactions = message.reactions.filter((r) => r !== existing);
    }
    return { ok: true };
  };
}

/** The assistant thread a call names by channel_id + thread_ts, or why it cannot. */
function assistantThread({ core, args }: MethodCall): Outcome<AssistantThreadState> {
  const channel = stringArg(args, 'channel_id');
  if (!channel) return { failure: missingArgument('channel_id') };
  const threadTs = stringArg(args, 'thread_ts');
  if (!threadTs) return { failure: missingArgument('thread_ts') };
  if (!core.ws.channels.has(channel)) return { failure: fail('channel_not_found') };
  return { value: core.ws.assistantThread(channel, threadTs) };
}

function setStatus(call: MethodCall): Json {
  const thread = assistantThread(call);
  if ('failure' in thread) return thread.failure;
  if (call.args.status === undefined) return missingArgument('status');
  const status = String(call.args.status);
  let loadingMessages: string[] | undefined;
  if (call.args.loading_messages !== undefined) {
    const parsed = jsonArg(call.args.loading_messages);
    if (!parsed.ok || !Array.isArray(parsed.value) || parsed.value.length > 10) {
      return fail('invalid_arguments', { response_metadata: { messages: ['[ERROR] loading_messages must be an array of at most 10 strings'] } });
    }
    loadingMessages = parsed.value.map(String);
  }
  thread.value.status = status;
  thread.value.loadingMessages = loadingMessages;
  thread.value.statusHistory.push({ status, ...(loadingMessages ? { loading_messages: loadingMessages } : {}), at: Date.now() });
  return { ok: true };
}

function setSuggestedPrompts(call: MethodCall): Json {
  const thread = assistantThread(call);
  if ('failure' in thread) return thread.failure;
  const parsed = jsonArg(call.args.prompts);
  if (call.args.prompts === undefined) return missingArgument('prompts');
  const prompts = parsed.ok ? parsed.value : undefined;
  const valid =
    Array.isArray(prompts) &&
    prompts.length >= 1 &&
    prompts.length <= 4 &&
    prompts.every((p) => typeof p === 'object' && p !== null && typeof p.title === 'string' && typeof p.message === 'string');
  if (!valid) {
    return fail('invalid_arguments', {
      response_metadata: { messages: ['[ERROR] prompts must hold 1 to 4 objects with title and message [json-pointer:/prompts]'] },
    });
  }
  const title = stringArg(call.args, 'title');
  thread.value.suggestedPrompts = { ...(title ? { title } : {}), prompts };
  return { ok: true };
}

function setTitle(call: MethodCall): Json {
  const thread = assistantThread(call);
  if ('failure' in thread) return thread.failure;
  const title = stringArg(call.args, 'title');
  if (!title) return missingArgument('title');
  thread.value.title = title;
  return { ok: true };
}

export const workspaceMethods: Record<string, MethodSpec> = {
  'auth.test': { token: 'bot', handler: authTest },
  'apps.connections.open': { token: 'app', handler: connectionsOpen },
  'users.info': { token: 'bot', scope: 'users:read', handler: usersInfo },
  'bots.info': { token: 'bot', scope: 'users:read', handler: botsInfo },
  'team.info': { token: 'bot', scope: 'team:read', handler: teamInfo },
  'reactions.add': { token: 'bot', scope: 'reactions:write', channelArg: 'channel', handler: reaction(true) },
  'reactions.remove': { token: 'bot', scope: 'reactions:write', channelArg: 'channel', handler: reaction(false) },
  'assistant.threads.setStatus': { token: 'bot', scope: 'assistant:write', channelArg: 'channel_id', handler: setStatus },
  'assistant.threads.setSuggestedPrompts': {
    token: 'bot',
    scope: 'assistant:write',
    channelArg: 'channel_id',
    handler: setSuggestedPrompts,
  },
  'assistant.threads.setTitle': { token: 'bot', scope: 'assistant:write', channelArg: 'channel_id', handler: setTitle },
};
