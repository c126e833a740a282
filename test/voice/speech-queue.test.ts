import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../../src/service/errors.ts';
import { SpeechQueue, type SpeechQueueOptions } from '../../src/voice/speech-queue.ts';
import { VoiceError } from '../../src/voice/voice-error.ts';
import { FakeSynth, fakeJoiner, tone } from './fakes.ts';
import { silentLogger } from '../helpers/logger.ts';

function setup(options: Partial<SpeechQueueOptions> = {}) {
  const synth = new FakeSynth();
  const joiner = fakeJoiner();
  const queue = new SpeechQueue({
    join: joiner.join,
    synthesize: synth.synthesize,
    logger: silentLogger,
    idleTimeoutMs: 60_000,
    maxQueued: 3,
    maxNarrationBacklog: 2,
    ...options,
  });
  return { synth, joiner, queue };
}

const say = (text: string, channelId = 'voice-1') => ({ kind: 'say' as const, channelId, request: { text } });
const narrate = (text: string) => ({ kind: 'narration' as const, channelId: 'voice-1', request: { text } });

afterEach(() => {
  vi.useRealTimers();
});

describe('SpeechQueue', () => {
  it('plays speeches one after another in the channel, joining it once', async () => {
    const { synth, joiner, queue } = setup();
    const first = queue.enqueue(say('one'));
    const second = queue.enqueue(say('two'));
    expect([first.ahead, second.ahead]).toEqual([0, 1]);
    await synth.waitForRequests(1);
    expect(synth.requests).toHaveLength(1); // the second waits its turn
    synth.requests[0]!.push(tone(0.2));
    synth.requests[0]!.end();
    expect(await first.finished).toEqual({ status: 'played' });
    await synth.waitForRequests(2);
    expect(synth.requests.map((request) => request.input.text)).toEqual(['one', 'two']);
    synth.requests[1]!.push(tone(0.1));
    synth.requests[1]!.end();
    expect(await second.finished).toEqual({ status: 'played' });
    expect(joiner.links).toHaveLength(1);
    expect(joiner.links[0]!.played.map((packets) => packets.length)).toEqual([11, 6]); // 200 and 100 ms + lookahead
    expect(queue.busy).toBe(false);
  });

  it('skip ends the current speech (its synthesis is cancelled) and goes on with the next', async () => {
    const { synth, joiner, queue } = setup();
    const first = queue.enqueue(say('long'));
    const second = queue.enqueue(say('next'));
    await synth.waitForRequests(1);
    synth.requests[0]!.push(tone(0.3));
    await vi.waitFor(() => expect(joiner.links[0]?.played[0]?.length).toBeGreaterThan(10));
    expect(queue.skip()).toBe(true);
    expect(await first.finished).toEqual({ status: 'skipped' });
    expect(synth.requests[0]!.aborted()).toBe(true);
    await synth.waitForRequests(2);
    synth.requests[1]!.end();
    expect(await second.finished).toEqual({ status: 'played' });
    expect(queue.skip()).toBe(false);
  });

  it('stop silences the current speech and clears the waiting ones', async () => {
    const { synth, queue } = setup();
    const outcomes = [queue.enqueue(say('a')), queue.enqueue(say('b')), queue.enqueue(say('c'))].map((t) => t.finished);
    await synth.waitForRequests(1);
    expect(queue.stop()).toBe(3);
    expect(await Promise.all(outcomes)).toEqual([{ status: 'stopped' }, { status: 'stopped' }, { status: 'stopped' }]);
    expect(synth.requests).toHaveLength(1);
    expect(synth.requests[0]!.aborted()).toBe(true);
    expect(queue.busy).toBe(false);
    expect(queue.stop()).toBe(0);
  });

  it('refuses more requested speeches than it may hold', async () => {
    const { queue } = setup();
    queue.enqueue(say('playing'));
    for (const text of ['1', '2', '3']) queue.enqueue(say(text));
    expect(() => queue.enqueue(say('4'))).toThrow(VoiceError);
    queue.stop();
  });

  it('leaves the channel after the idle timeout, and a new speech in time keeps it', async () => {
    const { synth, joiner, queue } = setup();
    const first = queue.enqueue(say('hello'));
    await synth.waitForRequests(1);
    synth.requests[0]!.end();
    await first.finished;
    await vi.waitFor(() => expect(queue.busy).toBe(false));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    queue.idle(); // restart the countdown under fake time
    vi.advanceTimersByTime(59_000);
    expect(joiner.links[0]!.left).toBe(false);
    const second = queue.enqueue(say('again'));
    vi.advanceTimersByTime(5_000);
    expect(joiner.links[0]!.left).toBe(false); // the countdown stopped while speaking
    await synth.waitForRequests(2);
    synth.requests[1]!.end();
    await second.finished;
    await vi.waitFor(() => expect(queue.busy).toBe(false));
    vi.advanceTimersByTime(60_000);
    expect(joiner.links[0]!.left).toBe(true);
    expect(queue.connected).toBe(false);
    expect(joiner.links).toHaveLength(1);
  });

  it('stays connected while told to (narration running)', async () => {
    let narrating = true;
    const { synth, joiner, queue } = setup({ keepConnected: () => narrating });
    const first = queue.enqueue(say('hello'));
    await synth.waitForRequests(1);
    synth.requests[0]!.end();
    await first.finished;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    queue.idle();
    vi.advanceTimersByTime(10 * 60_000);
    expect(joiner.links[0]!.left).toBe(false);
    narrating = false;
    queue.idle();
    vi.advanceTimersByTime(60_000);
    expect(joiner.links[0]!.left).toBe(true);
  });

  it('says so when the connection is lost for good, and joins again for the next speech', async () => {
    const { synth, joiner, queue } = setup();
    const first = queue.enqueue(say('cut off'));
    const second = queue.enqueue(say('after'));
    await synth.waitForRequests(1);
    synth.requests[0]!.push(tone(0.2));
    await vi.waitFor(() => expect(joiner.links[0]?.played[0]?.length).toBeGreaterThan(5));
    joiner.links[0]!.lose('I lost the voice connection and could not get it back.');
    expect(await first.finished).toEqual({ status: 'failed', message: 'I lost the voice connection and could not get it back.' });
    await synth.waitForRequests(2);
    synth.requests[1]!.push(tone(0.1));
    synth.requests[1]!.end();
    expect(await second.finished).toEqual({ status: 'played' });
    expect(joiner.links).toHaveLength(2);
    expect(joiner.links[1]!.played[0]).toHaveLength(6);
  });

  it('follows the bot when someone moves it: what waits, and speech asked for there, plays on without a new join; idle, it leaves', async () => {
    const { synth, joiner, queue } = setup();
    const first = queue.enqueue(say('before the move'));
    const second = queue.enqueue(say('queued before the move'));
    await synth.waitForRequests(1);
    joiner.links[0]!.move('voice-2');
    expect(queue.channelId).toBe('voice-2');
    synth.requests[0]!.end();
    expect(await first.finished).toEqual({ status: 'played' });
    await synth.waitForRequests(2);
    const third = queue.enqueue(say('asked in the new channel', 'voice-2'));
    expect(third.ahead).toBe(1);
    synth.requests[1]!.end();
    await synth.waitForRequests(3);
    synth.requests[2]!.end();
    expect(await Promise.all([second.finished, third.finished])).toEqual([{ status: 'played' }, { status: 'played' }]);
    expect(joiner.links.map((link) => [link.channelId, link.played.length])).toEqual([['voice-2', 3]]);
    await vi.waitFor(() => expect(queue.busy).toBe(false));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    queue.idle();
    vi.advanceTimersByTime(60_000);
    expect(joiner.links[0]!.left).toBe(true);
  });

  it('after a move, speech asked for in the old channel joins back there', async () => {
    const { synth, joiner, queue } = setup();
    const first = queue.enqueue(say('here'));
    await synth.waitForRequests(1);
    joiner.links[0]!.move('voice-2');
    synth.requests[0]!.end();
    await first.finished;
    const back = queue.enqueue(say('back there', 'voice-1'));
    await synth.waitForRequests(2);
    synth.requests[1]!.end();
    expect(await back.finished).toEqual({ status: 'played' });
    expect(joiner.links.map((link) => [link.channelId, link.left])).toEqual([
      ['voice-2', true],
      ['voice-1', false],
    ]);
  });

  it('empties when someone removes the bot: every speech fails with the reason and nothing joins again by itself', async () => {
    const { synth, joiner, queue } = setup();
    const outcomes = [queue.enqueue(say('cut off')), queue.enqueue(say('waiting')), queue.enqueue(narrate('Alice says: hi.'))];
    await synth.waitForRequests(1);
    synth.requests[0]!.push(tone(0.2));
    await vi.waitFor(() => expect(joiner.links[0]?.played[0]?.length).toBeGreaterThan(5));
    joiner.links[0]!.lose('I was disconnected from the voice channel.', true);
    const failed = { status: 'failed', message: 'I was disconnected from the voice channel.' };
    expect(await Promise.all(outcomes.map((ticket) => ticket.finished))).toEqual([failed, failed, failed]);
    await vi.waitFor(() => expect(queue.busy).toBe(false));
    expect([queue.connected, queue.channelId, queue.skip(), queue.stop()]).toEqual([false, undefined, false, 0]);
    expect({ joins: joiner.links.length, syntheses: synth.requests.length }).toEqual({ joins: 1, syntheses: 1 });

    const later = queue.enqueue(say('asked again'));
    expect(later.ahead).toBe(0);
    await synth.waitForRequests(2);
    synth.requests[1]!.end();
    expect(await later.finished).toEqual({ status: 'played' });
    expect(joiner.links).toHaveLength(2);
  });

  it('moves to another channel when asked there while idle', async () => {
    const { synth, joiner, queue } = setup();
    const first = queue.enqueue(say('here', 'voice-1'));
    await synth.waitForRequests(1);
    synth.requests[0]!.end();
    await first.finished;
    const second = queue.enqueue(say('there', 'voice-2'));
    await synth.waitForRequests(2);
    synth.requests[1]!.end();
    await second.finished;
    expect(joiner.links.map((link) => [link.channelId, link.left])).toEqual([
      ['voice-1', true],
      ['voice-2', false],
    ]);
  });

  it('stops cleanly when synthesis fails partway and says why', async () => {
    const { synth, joiner, queue } = setup();
    const ticket = queue.enqueue(say('doomed'));
    await synth.waitForRequests(1);
    synth.requests[0]!.push(tone(0.2));
    synth.requests[0]!.fail(new ServiceError('The AI service stopped responding.', { code: 'stream_interrupted' }));
    expect(await ticket.finished).toEqual({
      status: 'failed',
      message: 'Speech synthesis failed partway, so I stopped speaking. The AI service stopped responding.',
    });
    expect(joiner.links[0]!.played[0]).toHaveLength(11); // what arrived was played out, then the stream ended
  });

  it('says synthesis failed when no audio came at all', async () => {
    const { synth, queue } = setup();
    const ticket = queue.enqueue(say('refused'));
    await synth.waitForRequests(1);
    synth.requests[0]!.fail(new Error('socket hang up'));
    expect(await ticket.finished).toEqual({ status: 'failed', message: 'Speech synthesis failed.' });
  });

  it('keeps the narration backlog bounded: drops the oldest and mentions it before the next narrated message', async () => {
    const { synth, queue } = setup();
    const playing = queue.enqueue(narrate('Alice says: first.'));
    await synth.waitForRequests(1);
    const waiting = ['second', 'third', 'fourth', 'fifth'].map((text) => queue.enqueue(narrate(`Alice says: ${text}.`)).finished);
    const requested = queue.enqueue(say('a /say in between'));
    synth.requests[0]!.end();
    await playing.finished;
    expect(await waiting[0]).toEqual({ status: 'dropped' });
    expect(await waiting[1]).toEqual({ status: 'dropped' });
    for (let i = 2; i <= 4; i++) {
      await synth.waitForRequests(i);
      synth.requests[i - 1]!.end();
    }
    await Promise.all([waiting[2], waiting[3], requested.finished]);
    expect(synth.requests.map((request) => request.input.text)).toEqual([
      'Alice says: first.',
      'Skipped two older messages. Alice says: fourth.',
      'Alice says: fifth.',
      'a /say in between',
    ]);
  });
});
