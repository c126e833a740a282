import type { UserTimezones } from '../src/schedules/user-timezones.ts';
import { formatWhen } from '../src/schedules/zone-time.ts';
import { booleanOption, stringOption, type CommandContext, type CommandDefinition } from './command.ts';
import { scheduling, zoneOf, zoneSubject } from './schedule-lines.ts';

const ZONE_CHARS = 64;
const FORGET = new Set(['clear', 'none', 'reset', 'default']);
const SOURCES = { platform: 'your profile’s', workspace: 'the server’s', default: 'Herald’s default' } as const;

/** The server's default zone, which members who chose none read times in; its administrators set it. */
async function setServerZone(ctx: CommandContext, timezones: UserTimezones, given: string | undefined): Promise<void> {
  if (ctx.workspaceId === undefined) return ctx.reply('A direct message has no server: set your own zone with /timezone zone:.', { ephemeral: true });
  if (!ctx.user.isAdmin) return ctx.reply('Only administrators can set the server’s time zone.', { ephemeral: true });
  if (given === undefined) return ctx.reply('Name the zone: /timezone zone:Europe/Berlin server:true (or zone:clear).', { ephemeral: true });
  const stored = await timezones.setWorkspaceZone(ctx.platform, ctx.workspaceId, FORGET.has(given.toLowerCase()) ? null : given);
  await ctx.reply(
    stored === null
      ? 'Cleared: members who chose no zone read times in Herald’s default again.'
      : `The server’s time zone is now ${stored}, for members who chose none.`,
    { ephemeral: true },
  );
}

/**
 * `/timezone [zone] [server]`: the user's own time zone (an IANA name), which reminders and schedules they set read
 * times in; without a zone it says which one is in use, `clear` falls back to the server's (which its administrators
 * set with `server:true`) or Herald's. Where the platform knows each user's zone (Slack), it is not offered.
 */
export const timezone: CommandDefinition = {
  name: 'timezone',
  description: 'Your time zone, for reminders and schedules (e.g. Europe/Berlin, America/New_York)',
  ephemeral: true,
  options: [
    {
      name: 'zone',
      description: 'An IANA name such as Europe/Berlin or America/New_York; clear to use the server’s',
      type: 'string',
      maxLength: ZONE_CHARS,
    },
    { name: 'server', description: 'Set the server’s default instead, for members who chose none (administrators)', type: 'boolean' },
  ],
  async run(ctx, services) {
    const { timezones } = scheduling(services);
    const given = stringOption(ctx, 'zone')?.trim() || undefined;
    if (booleanOption(ctx, 'server')) return setServerZone(ctx, timezones, given);
    if (given !== undefined) {
      const stored = await timezones.setUserZone(ctx.platform, ctx.user.id, FORGET.has(given.toLowerCase()) ? null : given);
      if (stored === null) {
        const fallback = await zoneOf(ctx, timezones);
        return ctx.reply(`Cleared: times you give me are read in ${fallback} again.`, { ephemeral: true });
      }
    }
    const { zone, from } = await timezones.explain(zoneSubject(ctx));
    const source = from === 'user' ? 'your own choice' : `${SOURCES[from]}; set yours with /timezone zone:`;
    const now = Date.now();
    await ctx.reply(`Your time zone is ${zone} (${source}); it is ${formatWhen(now, zone, now)} there now.`, { ephemeral: true });
  },
};
