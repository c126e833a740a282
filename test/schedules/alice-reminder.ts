import type { NewSchedule } from '../../src/schedules/schedule.ts';

/** Alice's reminder in channel C1 of guild-1, read in Berlin time; `input` says when and changes anything else. */
export function aliceReminder(input: Partial<NewSchedule> & Pick<NewSchedule, 'when'>): NewSchedule {
  return {
    kind: 'reminder',
    platform: 'test',
    workspaceId: 'guild-1',
    creator: { id: 'U-alice', displayName: 'alice' },
    target: { type: 'channel', channelId: 'C1' },
    text: 'stand-up notes',
    timezone: 'Europe/Berlin',
    ...input,
  };
}
