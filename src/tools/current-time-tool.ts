import { defineTool } from './types.ts';

export const currentTimeTool = defineTool<{ timezone?: string }>({
  name: 'current_time',
  description: 'Returns the current date, weekday and time, in the bot\'s time zone or an IANA time zone such as "Asia/Tokyo".',
  parameters: {
    type: 'object',
    properties: { timezone: { type: 'string', description: "IANA time zone name; omit for the bot's own time zone" } },
  },
  handler({ timezone }, context) {
    const zone = timezone?.trim() || context.timezone;
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        weekday: 'long',
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
        timeZoneName: 'longOffset',
      });
    } catch {
      throw new Error(`unknown time zone "${zone}"; use an IANA name such as "Europe/Paris"`);
    }
    const now = context.now();
    return { result: { timezone: format.resolvedOptions().timeZone, local: format.format(now), utc: now.toISOString() } };
  },
});
