import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeardOpusDecoder } from '../../../adapters/discord/voice/heard-opus-decoder.ts';
import { createResampler } from '../../../src/media/audio/resample.ts';
import { writeWav } from '../../../src/media/wav.ts';
import { ClientOpusEncoder } from '../discord-voice/client-opus.ts';
import { TALK_FIXTURES, talkFixture, type TalkFixture } from '../discord-voice/talk-fixtures.ts';
import { startEmulator, type Emulator } from './emulator.ts';
import { dataUrl } from './media-fixtures.ts';
import { postChat } from './test-http.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
  for (const name of ['capital-of-france-a', 'time-in-tokyo-b', 'long-interruption-a'] as const) {
    emu.recognizer.register(TALK_FIXTURES[name], talkFixture(name));
  }
});
afterAll(() => emu.close());

/** What a user's voice becomes on its way to the service: Opus from their client, decoded by Herald. */
function throughOpus(pcm: Int16Array): Int16Array {
  const encoder = new ClientOpusEncoder();
  const out: Int16Array[] = [];
  const decoder = new HeardOpusDecoder((frame) => out.push(frame));
  for (let at = 0; at < pcm.length; at += 960) decoder.decode(encoder.encode(pcm.subarray(at, at + 960)));
  encoder.delete();
  decoder.free();
  return concat(out);
}

function concat(pieces: Int16Array[]): Int16Array {
  const joined = new Int16Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    joined.set(piece, at);
    at += piece.length;
  }
  return joined;
}

const silence = (seconds: number) => new Int16Array(Math.round(seconds * 48_000));

/** A turn as a bot would send it: pieces joined, at `gain`, resampled to 16 kHz, as a WAV. */
function turnWav(pieces: Int16Array[], gain = 1): Buffer {
  const joined = Float32Array.from(concat(pieces), (sample) => (sample / 32768) * gain);
  const resampler = createResampler(48_000, 16_000);
  const [head, tail] = [resampler.push(joined), resampler.flush()];
  const toInt16 = (value: number) => Math.max(-32768, Math.min(32767, Math.round(value * 32768)));
  return writeWav(concat([Int16Array.from(head, toInt16), Int16Array.from(tail, toInt16)]), 16_000, 1);
}

async function transcript(wav: Buffer): Promise<string> {
  const body = await postChat(emu, {
    model: 'svc-v2.5-asr',
    messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: dataUrl('audio/wav', wav) } }] }],
  });
  return body.choices[0].message.content;
}

const heard = (name: TalkFixture) => throughOpus(talkFixture(name));

describe('the emulator recognizes registered recordings in re-encoded turns', () => {
  it('returns the words of a recording after an Opus round trip, resampling, gain and silence around it', async () => {
    expect(await transcript(turnWav([silence(0.3), heard('capital-of-france-a'), silence(0.5)], 0.5))).toBe(TALK_FIXTURES['capital-of-france-a']);
    expect(await transcript(turnWav([heard('time-in-tokyo-b')], 1.5))).toBe(TALK_FIXTURES['time-in-tokyo-b']);
  });

  it('finds several recordings in one turn, in the order spoken, and tolerates a clipped start', async () => {
    const tokyo = heard('time-in-tokyo-b');
    const clipped = tokyo.subarray(Math.round(tokyo.length * 0.05));
    const wav = turnWav([heard('long-interruption-a'), silence(0.4), clipped]);
    expect(await transcript(wav)).toBe(`${TALK_FIXTURES['long-interruption-a']} ${TALK_FIXTURES['time-in-tokyo-b']}`);
  });

  it('keeps the fallback transcript for audio it does not know: other speech, a cough, a click, mm-hm, room noise', async () => {
    for (const name of ['tell-me-a-joke-b', 'cough', 'click', 'mm-hm-a', 'room-noise'] as const) {
      const wav = turnWav([silence(0.2), heard(name), silence(0.2)]);
      const seconds = (wav.length - 44) / 2 / 16_000;
      expect(await transcript(wav)).toBe(`Transcript of ${seconds.toFixed(2)} s of audio (language: auto).`);
    }
    // Half of a registered sentence is not that sentence.
    const france = heard('capital-of-france-a');
    expect(await transcript(turnWav([france.subarray(0, france.length / 2)]))).toMatch(/^Transcript of /);
  });
});
