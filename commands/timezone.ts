import { stringOption, type CommandDefinition } from './command.ts';
import { instantIn, scheduling, zoneOf } from './schedule-lines.ts';

const ZONE_CHARS = 64;
const FORGET = new Set(['clear', 'none', 'reset', 'default']);

/**
 * `/timezone [zone]`: the user's own time zone (an IANA name), which reminders and schedules they set read times in;
 * without a zone it says which one is in use, `clear` falls back to the server's or Herald's. Where the platform
 * knows each user's zone (Slack), it is not offered.
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
  ],
  async run(ctx, services) {
    const { timezones } = scheduling(services);
    const given = stringOption(ctx, 'zone')?.trim();
    if (given !== undefined && given !== '') {
      const stored = await timezones.setUserZone(ctx.platform, ctx.user.id, FORGET.has(given.toLowerCase()) ? null : given);
      if (stored === null) {
        const fallback = await zoneOf(ctx, timezones);
        return ctx.reply(`Cleared: times you give me are read in ${fallback} again.`, { ephemeral: true });
      }
    }
    const zone = await zoneOf(ctx, timezones);
    const own = await timezones.userZone(ctx.platform, ctx.user.id);
    const source = own ? 'your own choice' : 'the server’s; set yours with /timezone zone:';
    await ctx.reply(`Your time zone is ${zone} (${source}); it is ${instantIn(Date.now(), zone)} there now.`, { ephemeral: true });
  },
};
