import { DiscordErrors, FormErrors } from './errors.ts';
import { Intent, applicationFlags } from './intents.ts';
import type { GuildRecord, Json } from './records.ts';
import { route, type RouteDef } from './rest-router.ts';
import type { World } from './world.ts';

/** A guild the bot is in; Discord answers 403 Missing Access for others it knows. */
export function botGuild(world: World, guildId: string): GuildRecord {
  const guild = world.store.guild(guildId);
  if (!guild.members.has(world.bot.id)) throw DiscordErrors.missingAccess();
  return guild;
}

function application(world: World): Json {
  return {
    id: world.applicationId,
    name: world.applicationName,
    icon: null,
    description: '',
    type: null,
    bot: world.payloads.user(world.bot),
    summary: '',
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: '0'.repeat(64),
    flags: applicationFlags(world.options.privilegedIntents),
    flags_new: String(applicationFlags(world.options.privilegedIntents)),
    redirect_uris: [],
    interactions_endpoint_url: null,
    role_connections_verification_url: null,
    owner: world.payloads.user(world.bot),
    approximate_guild_count: [...world.store.guilds.values()].filter((g) => g.members.has(world.bot.id)).length,
    approximate_user_install_count: 0,
    approximate_user_authorization_count: 0,
    explicit_content_filter: 0,
    team: null,
    integration_types_config: { '0': {}, '1': {} },
    eligible_oauth2_scopes: [],
  };
}

function restGuild(world: World, guild: GuildRecord, withCounts: boolean): Json {
  const {
    members,
    channels,
    threads,
    voice_states,
    presences,
    stage_instances,
    guild_scheduled_events,
    soundboard_sounds,
    embedded_activities,
    activity_instances,
    joined_at,
    large,
    unavailable,
    lazy,
    member_count,
    version,
    ...rest
  } = world.payloads.guildCreate(guild, []);
  return {
    ...rest,
    ...(withCounts ? { approximate_member_count: guild.members.size, approximate_presence_count: 0 } : {}),
  };
}

export const coreRoutes: RouteDef[] = [
  route('GET', '/gateway', null, ({ world }) => ({ status: 200, body: { url: world.gatewayUrl } }), 'none'),
  route('GET', '/gateway/bot', 'default', ({ world }) => ({
    status: 200,
    body: {
      url: world.gatewayUrl,
      shards: world.options.recommendedShards,
      session_start_limit: {
        total: 1000,
        remaining: Math.max(0, 1000 - world.gateway.identifyCount),
        reset_after: 86_400_000,
        max_concurrency: world.options.maxConcurrency,
      },
    },
  })),
  route('GET', '/users/@me', 'default', ({ world }) => ({
    status: 200,
    body: { ...world.payloads.user(world.bot), verified: true, mfa_enabled: false, locale: 'en-US', email: null },
  })),
  route('GET', '/users/:user_id', 'default', ({ world, params }) => ({
    status: 200,
    body: world.payloads.user(world.store.user(params.user_id as string)),
  })),
  route('GET', '/users/@me/guilds', 'default', ({ world }) => ({
    status: 200,
    body: [...world.store.guilds.values()]
      .filter((g) => g.members.has(world.bot.id))
      .map((g) => ({
        id: g.id,
        name: g.name,
        icon: null,
        banner: null,
        owner: g.ownerId === world.bot.id,
        permissions: world.payloads.permissionsIn(g, world.bot.id, null).toString(),
        features: [],
      })),
  })),
  route('POST', '/users/@me/channels', 'default', ({ world, body }) => {
    const recipient = (body as Json | null)?.recipient_id;
    if (typeof recipient !== 'string') {
      const errors = new FormErrors();
      errors.required(['recipient_id']);
      errors.throwIfAny();
    }
    const user = world.store.user(recipient as string);
    if (user.id === world.bot.id) throw DiscordErrors.unknownUser();
    return { status: 200, body: world.payloads.channel(world.store.dmChannelWith(user.id)) };
  }),
  route('GET', '/applications/@me', 'default', ({ world }) => ({ status: 200, body: application(world) })),
  route('GET', '/guilds/:guild_id', 'default', ({ world, params, query }) => ({
    status: 200,
    body: restGuild(world, botGuild(world, params.guild_id as string), query.get('with_counts') === 'true'),
  })),
  route('GET', '/guilds/:guild_id/channels', 'default', ({ world, params }) => {
    const guild = botGuild(world, params.guild_id as string);
    return {
      status: 200,
      body: guild.channelIds
        .map((id) => world.store.channel(id))
        .filter((c) => !c.thread)
        .map((c) => world.payloads.channel(c)),
    };
  }),
  route('GET', '/guilds/:guild_id/roles', 'default', ({ world, params }) => ({
    status: 200,
    body: [...botGuild(world, params.guild_id as string).roles.values()].map((r) => world.payloads.role(r)),
  })),
  route('GET', '/guilds/:guild_id/members/:user_id', 'default', ({ world, params }) => {
    botGuild(world, params.guild_id as string);
    return {
      status: 200,
      body: world.payloads.member(world.store.member(params.guild_id as string, params.user_id as string), true),
    };
  }),
  route('GET', '/guilds/:guild_id/members', 'default', ({ world, params, query }) => {
    const guild = botGuild(world, params.guild_id as string);
    if (!(world.options.privilegedIntents & Intent.GuildMembers)) throw DiscordErrors.missingAccess();
    const limit = Math.min(1000, Math.max(1, Number(query.get('limit') ?? 1)));
    const after = BigInt(query.get('after') ?? '0');
    const members = [...guild.members.values()]
      .filter((m) => BigInt(m.userId) > after)
      .sort((a, b) => (BigInt(a.userId) < BigInt(b.userId) ? -1 : 1))
      .slice(0, limit);
    return { status: 200, body: members.map((m) => world.payloads.member(m, true)) };
  }),
  route('GET', '/guilds/:guild_id/voice-states/:user_id', 'default', ({ world, params }) => {
    const guild = botGuild(world, params.guild_id as string);
    const userId = params.user_id === '@me' ? world.bot.id : (params.user_id as string);
    const state = guild.voiceStates.get(userId);
    if (!state?.channelId) throw DiscordErrors.unknownVoiceState();
    return { status: 200, body: world.payloads.voiceState(state, true) };
  }),
];
