import { answerVoiceAction, booleanOption, type CommandDefinition } from './command.ts';

export const talk: CommandDefinition = {
  name: 'talk',
  description: 'Talk with Herald in your voice channel: it listens and answers aloud',
  voiceChannels: true,
  options: [],
  subcommands: [
    {
      name: 'start',
      description: 'Join your voice channel and listen (a server admin must allow listening)',
      options: [
        { name: 'transcript', description: "Post each turn and Herald's answer in the voice channel's chat", type: 'boolean' },
        { name: 'move', description: 'Leave the voice channel Herald is busy in and come to yours', type: 'boolean' },
      ],
    },
    { name: 'stop', description: 'Stop listening', options: [] },
  ],
  async run(ctx) {
    const { voice } = ctx;
    if (!voice) return ctx.reply('Talking works in server voice channels only.');
    if (ctx.subcommand === 'stop') {
      return answerVoiceAction(
        ctx,
        () => voice.stopTalk(),
        (stopped) => ctx.reply(stopped ? '🔇 Stopped listening.' : "I'm not listening in a voice channel."),
      );
    }
    // Joining the voice channel can outlast the platform's acknowledgement window.
    await ctx.defer();
    const started = await voice.startTalk({ transcript: booleanOption(ctx, 'transcript') ?? false, move: booleanOption(ctx, 'move') ?? false });
    await ctx.reply(`🎙️ Listening in 🔊 ${started.voiceChannelName}. Say “${started.name}, …” to ask me something; \`/talk stop\` ends it.`);
  },
};
