/**
 * Views and what is shown to one person: views.publish (the Home tab: a `home` view of at most 100 blocks, 250 KB,
 * with an optional hash guarding against a stale update), views.open (a `modal`, for a trigger id used once within
 * three seconds) and chat.postEphemeral (seen by one user in a conversation, never stored in it).
 */
import { randomBytes } from 'node:crypto';
import { jsonArg, parseBlocks, parseMessageContent } from './blocks.ts';
import { slackId } from './ids.ts';
import { fail, failWithMessages, missingArgument, stringArg } from './method-types.ts';
import type { MethodCall, MethodSpec, Outcome } from './method-types.ts';
import { postableChannel } from './methods-chat.ts';
import type { Json } from './state.ts';

const MAX_VIEW_BLOCKS = 100;
const MAX_VIEW_BYTES = 250 * 1024;
const TRIGGER_LIFETIME_MS = 3000;
const MAX_TITLE = 24;

function invalid(message: string): Json {
  return fail('invalid_arguments', { response_metadata: { messages: [`[ERROR] ${message}`] } });
}

/** Parses and checks a `view` argument of the given type. */
function parseView(raw: unknown, type: 'home' | 'modal'): Outcome<Json> {
  if (raw === undefined || raw === '') return { failure: missingArgument('view') };
  if (typeof raw === 'string' && Buffer.byteLength(raw) > MAX_VIEW_BYTES) return { failure: fail('view_too_large') };
  const parsed = jsonArg(raw);
  const view = parsed.ok ? parsed.value : undefined;
  if (typeof view !== 'object' || view === null || Array.isArray(view)) return { failure: invalid('view must be an object [json-pointer:/view]') };
  const v = view as Json;
  if (Buffer.byteLength(JSON.stringify(v)) > MAX_VIEW_BYTES) return { failure: fail('view_too_large') };
  if (v.type !== type) return { failure: invalid(`must be "${type}" [json-pointer:/view/type]`) };
  const blocks = parseBlocks(v.blocks ?? [], MAX_VIEW_BLOCKS);
  if ('error' in blocks) return { failure: fail('invalid_arguments', { response_metadata: { messages: blocks.messages ?? [blocks.error] } }) };
  if (type === 'modal') {
    const title = v.title as Json | undefined;
    if (typeof title !== 'object' || title === null || title.type !== 'plain_text' || typeof title.text !== 'string') {
      return { failure: invalid('missing required field: title [json-pointer:/view/title]') };
    }
    if (title.text.length > MAX_TITLE) return { failure: invalid(`must be less than ${MAX_TITLE + 1} characters [json-pointer:/view/title/text]`) };
  }
  return { value: { ...v, blocks: blocks.blocks } };
}

function viewHash(): string {
  return `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`;
}

function stored(call: MethodCall, view: Json): Json {
  const { identity } = call.core.ws;
  return {
    id: slackId('V'),
    team_id: identity.teamId,
    private_metadata: '',
    callback_id: '',
    external_id: '',
    state: { values: {} },
    clear_on_close: false,
    notify_on_close: false,
    ...view,
    hash: viewHash(),
    app_id: identity.appId,
    app_installed_team_id: identity.teamId,
    bot_id: identity.botId,
  };
}

function publish(call: MethodCall): Json {
  const { ws } = call.core;
  const user = stringArg(call.args, 'user_id');
  if (!user) return missingArgument('user_id');
  if (!ws.users.has(user)) return invalid('user_id must name a user of the workspace [json-pointer:/user_id]');
  const view = parseView(call.args.view, 'home');
  if ('failure' in view) return view.failure;
  const hash = stringArg(call.args, 'hash');
  const current = ws.homeViews.get(user);
  if (hash !== undefined && current && current.hash !== hash) return fail('hash_conflict');
  const published = stored(call, view.value);
  ws.homeViews.set(user, published);
  return { ok: true, view: published };
}

function open(call: MethodCall): Json {
  const { ws } = call.core;
  const trigger = stringArg(call.args, 'trigger_id');
  if (!trigger) return missingArgument('trigger_id');
  const issued = ws.triggers.get(trigger);
  if (!issued) return fail('invalid_trigger_id');
  if (issued.used) return fail('exchanged_trigger_id');
  if (Date.now() - issued.issuedAt > TRIGGER_LIFETIME_MS) return fail('expired_trigger_id');
  const view = parseView(call.args.view, 'modal');
  if ('failure' in view) return view.failure;
  issued.used = true;
  const opened = stored(call, view.value);
  ws.openedViews.push(opened);
  return { ok: true, view: opened };
}

function postEphemeral(call: MethodCall): Json {
  const { core, args } = call;
  const channel = postableChannel(core, stringArg(args, 'channel'), false);
  if ('failure' in channel) return channel.failure;
  const user = stringArg(args, 'user');
  if (!user) return missingArgument('user');
  if (!core.ws.users.has(user)) return fail('user_not_found');
  const content = parseMessageContent(args);
  if ('error' in content) return failWithMessages(content.error, content.messages);
  const threadTs = stringArg(args, 'thread_ts');
  core.ws.ephemeral.push({
    channel: channel.value.id,
    user,
    text: content.text,
    ...(threadTs ? { thread_ts: threadTs } : {}),
    ...(content.blocks ? { blocks: content.blocks } : {}),
    at: Date.now(),
  });
  return { ok: true, message_ts: core.ws.clock.next() };
}

export const viewMethods: Record<string, MethodSpec> = {
  'views.publish': { token: 'bot', handler: publish },
  'views.open': { token: 'bot', handler: open },
  'chat.postEphemeral': { token: 'bot', scope: 'chat:write', channelArg: 'channel', handler: postEphemeral },
};
