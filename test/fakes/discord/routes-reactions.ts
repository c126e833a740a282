/**
 * Reactions as Discord keeps them: PUT and DELETE /channels/{id}/messages/{id}/reactions/{emoji}/@me (both 204,
 * adding twice changes nothing), with MESSAGE_REACTION_ADD / MESSAGE_REACTION_REMOVE to those with the reactions
 * intent. Reacting needs Read Message History, and Add Reactions when nobody has reacted with that emoji yet; a
 * message holds at most 20 different emoji (30010).
 */
import { DiscordErrors, jsonError } from './errors.ts';
import { Intent } from './intents.ts';
import { Permission } from './permissions.ts';
import type { ChannelRecord, MessageRecord } from './records.ts';
import { route, type RouteDef } from './rest-router.ts';
import { visibleChannel } from './routes-channels.ts';
import type { World } from './world.ts';

const MAX_DISTINCT_EMOJI = 20;
/** A Unicode emoji (with variation selectors, ZWJ sequences, skin tones, keycaps) or a custom one as name:id. */
const UNICODE_EMOJI =
  /^(?:[#*0-9]\uFE0F?\u20E3|\p{Extended_Pictographic}\uFE0F?\p{Emoji_Modifier}?(?:\u200D\p{Extended_Pictographic}\uFE0F?\p{Emoji_Modifier}?)*|\p{Regional_Indicator}{2})$/u;
const CUSTOM_EMOJI = /^\w{2,32}:\d{17,20}$/;

/** Who reacted with what, per message, in the order the emoji were first added. */
const reactionsByWorld = new WeakMap<World, Map<string, Map<string, string[]>>>();

function reactionsOn(world: World, messageId: string): Map<string, string[]> {
  let byMessage = reactionsByWorld.get(world);
  if (!byMessage) reactionsByWorld.set(world, (byMessage = new Map()));
  let reactions = byMessage.get(messageId);
  if (!reactions) byMessage.set(messageId, (reactions = new Map()));
  return reactions;
}

/** The emoji on a message with the ids of those who reacted with each, as the fake holds them now. */
export function messageReactions(world: World, messageId: string): Record<string, string[]> {
  return Object.fromEntries([...reactionsOn(world, messageId)].map(([emoji, users]) => [emoji, [...users]]));
}

function emojiOf(raw: string): { id: string | null; name: string } {
  if (UNICODE_EMOJI.test(raw)) return { id: null, name: raw };
  if (CUSTOM_EMOJI.test(raw)) {
    const [name, id] = raw.split(':') as [string, string];
    return { id, name };
  }
  throw jsonError(400, 10014, 'Unknown Emoji');
}

function permitted(world: World, channel: ChannelRecord, bits: bigint): boolean {
  if (!channel.guildId) return true;
  const guild = world.store.guild(channel.guildId);
  return (world.payloads.permissionsIn(guild, world.bot.id, channel) & bits) === bits;
}

function dispatchReaction(
  world: World,
  event: 'MESSAGE_REACTION_ADD' | 'MESSAGE_REACTION_REMOVE',
  message: MessageRecord,
  emoji: { id: string | null; name: string },
): void {
  const intent = message.guildId ? Intent.GuildMessageReactions : Intent.DirectMessageReactions;
  world.gateway.dispatch(event, intent, () => ({
    user_id: world.bot.id,
    channel_id: message.channelId,
    message_id: message.id,
    ...(message.guildId && { guild_id: message.guildId }),
    emoji,
    burst: false,
    type: 0,
    ...(event === 'MESSAGE_REACTION_ADD' && { message_author_id: message.authorId, burst_colors: [] }),
  }));
}

function target(world: World, params: Record<string, string>): { channel: ChannelRecord; message: MessageRecord } {
  const channel = visibleChannel(world, params.channel_id as string);
  const message = world.store.channelMessage(channel.id, params.message_id as string);
  if (message.deleted) throw DiscordErrors.unknownMessage();
  return { channel, message };
}

export const reactionRoutes: RouteDef[] = [
  route('PUT', '/channels/:channel_id/messages/:message_id/reactions/:emoji/@me', 'default', ({ world, params }) => {
    const { channel, message } = target(world, params);
    const emoji = emojiOf(params.emoji as string);
    const reactions = reactionsOn(world, message.id);
    const users = reactions.get(params.emoji as string);
    if (!permitted(world, channel, Permission.ReadMessageHistory)) throw DiscordErrors.missingPermissions();
    if (!users && !permitted(world, channel, Permission.AddReactions)) throw DiscordErrors.missingPermissions();
    if (users?.includes(world.bot.id)) return { status: 204 };
    if (!users && reactions.size >= MAX_DISTINCT_EMOJI) throw jsonError(400, 30010, `Maximum number of reactions reached (${MAX_DISTINCT_EMOJI})`);
    if (users) users.push(world.bot.id);
    else reactions.set(params.emoji as string, [world.bot.id]);
    dispatchReaction(world, 'MESSAGE_REACTION_ADD', message, emoji);
    world.changed();
    return { status: 204 };
  }),
  route('DELETE', '/channels/:channel_id/messages/:message_id/reactions/:emoji/@me', 'default', ({ world, params }) => {
    const { message } = target(world, params);
    const emoji = emojiOf(params.emoji as string);
    const reactions = reactionsOn(world, message.id);
    const users = reactions.get(params.emoji as string);
    if (!users?.includes(world.bot.id)) return { status: 204 };
    const left = users.filter((id) => id !== world.bot.id);
    if (left.length === 0) reactions.delete(params.emoji as string);
    else reactions.set(params.emoji as string, left);
    dispatchReaction(world, 'MESSAGE_REACTION_REMOVE', message, emoji);
    world.changed();
    return { status: 204 };
  }),
];
