import { afterEach, describe, expect, it } from 'vitest';
import type { QuotaDenial, QuotaSubject } from '../../src/conversation/quotas.ts';
import type { ReplyUsage } from '../../src/conversation/types.ts';
import { MediaError } from '../../src/errors.ts';
import { opusFrameStream } from '../../src/media/speech/opus-frame-stream.ts';
import { readWav } from '../../src/media/wav.ts';
import { loadVoiceActivity } from '../../src/voice/talk/voice-activity.ts';
import { SpokenAnswer } from '../../src/voice/talk/spoken-answer.ts';
import { TalkSession } from '../../src/voice/talk/talk-session.ts';
import { silentLogger } from '../helpers/logger.ts';
import { talkFixture, type TalkFixture } from '../fakes/discord-voice/index.ts';
import { FakeSynth, tone } from './fakes.ts';
import { FakeAsr, FakeEngine, HearingLink, Signal } from './talk-fakes.ts';

let session: TalkSession | undefined;
afterEach(() => session?.end('the test is over.'));

async function harness(people: number) {
  const link = new HearingLink();
  const asr = new FakeAsr();
  const engine = new FakeEngine();
  const synth = new FakeSynth();
  const posts: string[] = [];
  const sources: string[] = [];
  const newPost = new Signal();
  const charged: { subject: QuotaSubject; usage: ReplyUsage }[] = [];
  const denied = new Set<string>();
  /** Whose requests were counted against the per-minute rate, one entry each. */
  const admitted: string[] = [];
  const budgetLeft = (userId: string): QuotaDenial | null =>
    denied.has(userId) ? { code: 'daily_budget', message: "You've used your daily budget.", retryAfterMs: 1000 } : null;
  const room = { people };
  const clock = { now: 1000 };
  const ended: string[] = [];
  const names: Record<string, string> = { alice: 'Alice', bob: 'Bob' };
  session = new TalkSession({
    platform: 'test',
    guildId: 'guild-1',
    link,
    room: {
      people: () => room.people,
      displayName: (userId) => names[userId] ?? userId,
      post: async (text, citations) => {
        posts.push(text);
        if (citations?.length) sources.push(...citations.map((citation) => citation.url));
        newPost.wake();
      },
    },
    services: {
      answer: engine.answer,
      transcribe: asr.transcribe,
      synthesize: synth.synthesize,
      spending: {
        admit: async (subject): Promise<QuotaDenial | null> => {
          admitted.push(subject.userId);
          return budgetLeft(subject.userId);
        },
        withinBudget: async (subject) => budgetLeft(subject.userId),
        record: async (subject, usage) => void charged.push({ subject, usage }),
      },
      activity: await loadVoiceActivity(),
    },
    startedBy: 'alice',
    name: 'Herald',
    transcript: true,
    voice: 'svc_default',
    idleMs: 60_000,
    logger: silentLogger,
    clock: () => clock.now,
    onEnd: (reason) => ended.push(reason),
  });
  session.start();
  /** Says a recording, then lets the clock run past the hangover of silence after it. */
  const say = (userId: string, name: TalkFixture) => {
    const end = link.speak(userId, talkFixture(name), clock.now);
    clock.now = end + 1000;
    return end;
  };
  const posted = async (count: number) => {
    while (posts.length < count) await newPost.wait();
  };
  return { session, link, asr, engine, synth, posts, sources, posted, charged, denied, admitted, room, clock, ended, say };
}

describe('A talk session', () => {
  it('answers a question asked aloud, speaking the first sentence while the answer is still written', async () => {
    const h = await harness(1);
    expect(h.link.listening).toBe(true);
    h.say('alice', 'capital-of-france-a');
    const turn = await h.asr.next(0);
    const heard = readWav(turn.input.audio.data);
    expect(turn.input.audio.mime).toBe('audio/wav');
    // The whole utterance, with its first syllable: the fixture lasts 1.94 s.
    expect(heard.channels[0]!.length / heard.sampleRate).toBeGreaterThan(1.9);
    turn.reply('What is the capital of France?');

    const answer = await h.engine.next(0);
    expect(answer.message).toMatchObject({ author: { id: 'alice', displayName: 'Alice' }, text: 'What is the capital of France?', isDirect: false });
    expect(answer.options).toMatchObject({ overrides: { thinking: false }, spoken: true });
    answer.emit({ type: 'text', delta: 'Paris is the capital' });
    answer.emit({ type: 'text', delta: ' of France [1]. It lies' });
    await h.synth.waitForRequests(1);
    expect(h.synth.requests[0]!.input.text).toBe('Paris is the capital of France.');
    h.synth.requests[0]!.push(tone(0.2));
    await h.link.played(5);

    answer.emit({ type: 'text', delta: ' on the Seine.' });
    answer.emit({ type: 'citations', citations: [{ index: 1, url: 'https://example.com/paris', title: 'Paris' }] });
    answer.done();
    h.synth.requests[0]!.end();
    await h.synth.waitForRequests(2);
    expect(h.synth.requests[1]!.input.text).toBe('It lies on the Seine.');
    h.synth.requests[1]!.push(tone(0.2));
    h.synth.requests[1]!.end();
    await h.session.untilPause();
    expect(h.link.packets.length).toBeGreaterThanOrEqual(20);
    expect(h.posts).toEqual([
      '🗣️ **Alice:** What is the capital of France?',
      '🔊 **Herald:** Paris is the capital of France [1]. It lies on the Seine.',
    ]);
    expect(h.sources).toEqual(['https://example.com/paris']);
    // Transcription, then the two sentences' speech, charged to Alice.
    expect(h.charged.map(({ subject, usage }) => [subject.userId, usage.serviceCalls])).toEqual([
      ['alice', 1],
      ['alice', 2],
    ]);
    // The turn counted once against her requests per minute (its transcription); its speech took only budget room.
    expect(h.admitted).toEqual(['alice']);
    expect(h.charged[0]!.usage.audioSeconds).toBe(2);
  });

  it("writes the answer in the chat with a note, unspoken, when the speaker's budget has no room for its speech", async () => {
    const h = await harness(1);
    h.say('alice', 'capital-of-france-a');
    const turn = await h.asr.next(0);
    // Her transcription was admitted; the budget runs out before the answer would be spoken.
    h.denied.add('alice');
    turn.reply('What is the capital of France?');
    const answer = await h.engine.next(0);
    answer.emit({ type: 'text', delta: 'Paris is the capital of France [1]. It lies on the Seine.' });
    answer.emit({ type: 'citations', citations: [{ index: 1, url: 'https://example.com/paris', title: 'Paris' }] });
    answer.done();
    await h.session.untilPause();
    expect(h.posts).toEqual([
      '🗣️ **Alice:** What is the capital of France?',
      "💬 **Herald:** Paris is the capital of France [1]. It lies on the Seine.\n⚠️ Not spoken aloud: You've used your daily budget.",
    ]);
    expect(h.sources).toEqual(['https://example.com/paris']);
    expect(h.synth.requests).toEqual([]);
    expect(h.link.plays).toBe(0);
    expect(h.charged.map(({ subject, usage }) => [subject.userId, usage.serviceCalls])).toEqual([['alice', 1]]);
  });

  it('pauses for a voice speaking over it, not for a cough, and resumes when the voice was no turn', async () => {
    const h = await harness(2);
    h.say('alice', 'capital-of-france-a');
    (await h.asr.next(0)).reply('Herald, what is the capital of France?');
    const answer = await h.engine.next(0);
    answer.emit({ type: 'text', delta: 'Paris is the capital of France. ' });
    await h.synth.waitForRequests(1);
    h.synth.requests[0]!.push(tone(0.2));
    await h.link.played(5);

    h.link.speak('bob', talkFixture('cough'), h.clock.now);
    h.synth.requests[0]!.push(tone(0.4));
    await h.link.played(25);

    h.link.speak('bob', talkFixture('mm-hm-a'), h.clock.now);
    const atPause = h.link.packets.length;
    h.synth.requests[0]!.push(tone(1));
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    // A packet read ahead may still go out; nothing more while Bob's voice lasts.
    expect(h.link.packets.length).toBeLessThanOrEqual(atPause + 1);

    h.clock.now += 1000;
    await h.link.played(atPause + 40);
    expect(h.asr.calls).toHaveLength(1);
    answer.done();
    h.synth.requests[0]!.end();
    await h.session.untilPause();
  });

  it('with two people, ignores a turn without its name and answers one with it in place of the answer going on', async () => {
    const h = await harness(2);
    h.say('bob', 'time-in-tokyo-b');
    (await h.asr.next(0)).reply('What time is it in Tokyo?');
    await h.session.untilPause();
    expect(h.engine.calls).toHaveLength(0);

    h.say('alice', 'capital-of-france-a');
    (await h.asr.next(1)).reply('Herald, what is the capital of France?');
    const first = await h.engine.next(0);
    first.emit({ type: 'text', delta: 'Paris is the capital of France. ' });
    await h.synth.waitForRequests(1);
    h.synth.requests[0]!.push(tone(1));
    await h.link.played(5);

    h.say('bob', 'tell-me-a-joke-b');
    (await h.asr.next(2)).reply('Hey Harold, tell me a joke.');
    const second = await h.engine.next(1);
    expect(first.options.signal?.aborted).toBe(true);
    expect(h.synth.requests[0]!.aborted()).toBe(true);
    expect(h.link.stops).toBe(1);
    expect(second.message).toMatchObject({ author: { id: 'bob', displayName: 'Bob' }, text: 'Hey Harold, tell me a joke.' });
    // One conversation for the whole session.
    expect(second.message.threadId).toBe(first.message.threadId);
    second.emit({ type: 'text', delta: 'Why did the chicken cross the road?' });
    second.done();
    await h.synth.waitForRequests(2);
    expect(h.synth.requests[1]!.input.text).toBe('Why did the chicken cross the road?');
    h.synth.requests[1]!.push(tone(0.1));
    h.synth.requests[1]!.end();
    await h.session.untilPause();
    expect(h.posts).not.toContain('🗣️ **Bob:** What time is it in Tokyo?');
  });

  it('takes no turn from a cough, a click or an "mm-hm", and says why a spent budget gets no answer', async () => {
    const h = await harness(1);
    for (const sound of ['cough', 'click', 'mm-hm-a'] as const) {
      h.say('bob', sound);
      await h.session.untilPause();
    }
    h.say('bob', 'room-noise');
    await h.session.untilPause();
    expect(h.asr.calls).toHaveLength(0);

    h.denied.add('bob');
    h.say('bob', 'time-in-tokyo-b');
    await h.posted(1);
    expect(h.posts).toEqual(["⚠️ Bob: You've used your daily budget."]);
    expect(h.asr.calls).toHaveLength(0);
    expect(h.charged).toEqual([]);

    h.denied.delete('bob');
    h.say('bob', 'time-in-tokyo-b');
    (await h.asr.next(0)).fail(new MediaError('The recording is damaged.', { code: 'corrupt' }));
    await h.posted(2);
    expect(h.posts[1]).toBe('⚠️ Bob: The recording is damaged.');
    expect(h.engine.calls).toEqual([]);
  });

  it('cuts a monologue into turns of at most 30 seconds, losing none of it', async () => {
    const h = await harness(1);
    const sentence = talkFixture('capital-of-france-a');
    const monologue = new Int16Array(sentence.length * 18);
    for (let i = 0; i < 18; i++) monologue.set(sentence, i * sentence.length);
    const end = h.link.speak('alice', monologue, h.clock.now);
    h.clock.now = end + 1000;
    const seconds = async (index: number) => {
      const turn = await h.asr.next(index);
      turn.reply('');
      const wav = readWav(turn.input.audio.data);
      return wav.channels[0]!.length / wav.sampleRate;
    };
    const first = await seconds(0);
    expect(first).toBe(30);
    expect(first + (await seconds(1))).toBeCloseTo(monologue.length / 48_000, 1);
  });

  it('stops listening when it ends, and tells the channel why', async () => {
    const h = await harness(1);
    h.session.end('/talk stop by Alice.');
    expect(h.link.listening).toBe(false);
    expect(h.ended).toEqual(['/talk stop by Alice.']);
    await h.session.untilPause();
    expect(h.posts).toEqual(['🔇 Stopped listening: /talk stop by Alice.']);
    h.say('alice', 'capital-of-france-a');
    expect(h.asr.calls).toHaveLength(0);
  });
});

describe('A spoken answer', () => {
  it('synthesizes the sentence playing and the next, no further ahead, and plays them in order', async () => {
    const synth = new FakeSynth();
    const spoken = new SpokenAnswer((text, signal) => synth.synthesize({ text, signal }));
    for (const text of ['One.', 'Two.', 'Three.']) spoken.add(text);
    spoken.end();
    await synth.waitForRequests(1);
    const packets: Buffer[] = [];
    const played = new Promise<void>((resolve) => {
      spoken.packets.on('data', (packet: Buffer) => packets.push(packet));
      spoken.packets.once('end', resolve);
    });
    await synth.waitForRequests(2);
    expect(synth.requests.map((request) => request.input.text)).toEqual(['One.', 'Two.']);
    // The second sentence is ready first; it still waits for the first.
    synth.requests[1]!.push(tone(0.1, 880));
    synth.requests[1]!.end();
    synth.requests[0]!.push(tone(0.1));
    synth.requests[0]!.end();
    await synth.waitForRequests(3);
    expect(packets.length).toBeGreaterThanOrEqual(5);
    synth.requests[2]!.end();
    await played;
    const encoded = async (pcm: Buffer) => {
      const out: Buffer[] = [];
      for await (const packet of opusFrameStream(
        (async function* () {
          yield pcm;
        })(),
      ))
        out.push(packet);
      return out;
    };
    expect(packets).toEqual([...(await encoded(tone(0.1))), ...(await encoded(tone(0.1, 880))), ...(await encoded(Buffer.alloc(0)))]);
  });
});
