import { describe, expect, it } from 'vitest';
import { voiceChannelRefusal, type VoiceChannelAccess } from '../../adapters/discord/voice/voice-permissions.ts';

const allowed: VoiceChannelAccess = {
  name: 'Lounge',
  stage: false,
  userLimit: 0,
  occupants: 3,
  botInChannel: false,
  bot: { view: true, connect: true, speak: true, moveMembers: false, manageChannels: false, administrator: false, timedOut: false },
};
const withBot = (bot: Partial<VoiceChannelAccess['bot']>) => ({ ...allowed, bot: { ...allowed.bot, ...bot } });

describe('voice channel checks', () => {
  it('lets the bot in when it may connect and speak', () => {
    expect(voiceChannelRefusal(allowed)).toBeUndefined();
  });

  it('names the missing permission', () => {
    expect(voiceChannelRefusal(withBot({ connect: false }))).toMatchObject({
      code: 'missing_connect',
      message: "I don't have permission to join 🔊 Lounge. A server admin can give me **Connect** there.",
    });
    expect(voiceChannelRefusal(withBot({ view: false }))).toMatchObject({ code: 'missing_connect' });
    expect(voiceChannelRefusal(withBot({ speak: false }))).toMatchObject({
      code: 'missing_speak',
      message: 'I can join 🔊 Lounge but not speak there. A server admin can give me **Speak** there.',
    });
    expect(voiceChannelRefusal(withBot({ connect: false, speak: false, administrator: true }))).toBeUndefined();
    expect(voiceChannelRefusal(withBot({ timedOut: true }))).toMatchObject({ code: 'missing_connect', message: expect.stringMatching(/timed out/) });
  });

  it('refuses a full channel unless the bot is already there, may move members or may manage the channel', () => {
    const full = { ...allowed, userLimit: 3 };
    expect(voiceChannelRefusal(full)).toMatchObject({ code: 'channel_full', message: "🔊 Lounge is full (3/3), so I can't join it." });
    expect(voiceChannelRefusal({ ...full, botInChannel: true })).toBeUndefined();
    expect(voiceChannelRefusal({ ...full, bot: { ...full.bot, moveMembers: true } })).toBeUndefined();
    expect(voiceChannelRefusal({ ...full, bot: { ...full.bot, manageChannels: true } })).toBeUndefined();
    expect(voiceChannelRefusal({ ...full, userLimit: 4 })).toBeUndefined();
  });

  it('does not try to speak on a stage', () => {
    expect(voiceChannelRefusal({ ...allowed, stage: true })).toMatchObject({ code: 'unsupported_channel' });
  });
});
