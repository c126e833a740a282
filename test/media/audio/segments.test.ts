import { describe, expect, it } from 'vitest';
import { decodeAudio } from '../../../src/media/audio/decode-audio.ts';
import { toInt16 } from '../../../src/media/audio/normalize.ts';
import {
  dataUrlLength,
  DEFAULT_MAX_BASE64_BYTES,
  joinTranscripts,
  maxWavSamples,
  planSegments,
  prepareForTranscription,
  transcribeSegments,
} from '../../../src/media/audio/segments.ts';
import { readWav } from '../../../src/media/wav.ts';
import { fixture, rms } from './audio-fixtures.ts';

function random(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

/** Loud noise bursts ("words") separated by faint-noise pauses at known places. */
function burstsAndPauses(rate: number, seconds: number): { samples: Int16Array; pauses: Array<[number, number]> } {
  const next = random(42);
  const samples = new Int16Array(rate * seconds);
  const pauses: Array<[number, number]> = [];
  let at = 0;
  while (at < samples.length) {
    const word = Math.round(rate * (1.5 + 2 * next()));
    for (let i = at; i < Math.min(samples.length, at + word); i++) samples[i] = Math.round((next() - 0.5) * 16000);
    at += word;
    const pause = Math.round(rate * 0.3);
    pauses.push([at, Math.min(samples.length, at + pause)]);
    for (let i = at; i < Math.min(samples.length, at + pause); i++) samples[i] = Math.round((next() - 0.5) * 60);
    at += pause;
  }
  return { samples, pauses };
}

describe('the size limit', () => {
  it('fits as many 16 kHz samples as a 10 MiB data URL holds, and not one more', () => {
    const n = maxWavSamples();
    expect(dataUrlLength('audio/wav', 44 + 2 * n)).toBeLessThanOrEqual(DEFAULT_MAX_BASE64_BYTES);
    expect(dataUrlLength('audio/wav', 44 + 2 * (n + 1))).toBeGreaterThan(DEFAULT_MAX_BASE64_BYTES);
    expect(n / 16000).toBeCloseTo(245.76, 2);
  });
});

describe('planSegments', () => {
  it('keeps a recording that fits in one piece', () => {
    expect(planSegments(new Int16Array(1000), { maxSamples: 1000 })).toEqual([{ start: 0, end: 1000 }]);
  });

  it('cuts inside pauses, within the search window before each limit', () => {
    const rate = 16000;
    const { samples, pauses } = burstsAndPauses(rate, 120);
    const maxSamples = 20 * rate;
    const ranges = planSegments(samples, { maxSamples, sampleRate: rate, searchWindowSeconds: 5 });
    expect(ranges.length).toBeGreaterThanOrEqual(6);
    expect(ranges[0]!.start).toBe(0);
    expect(ranges.at(-1)!.end).toBe(samples.length);
    for (let i = 0; i < ranges.length; i++) {
      const { start, end } = ranges[i]!;
      expect(end - start).toBeLessThanOrEqual(maxSamples);
      if (i === ranges.length - 1) break;
      expect(ranges[i + 1]!.start).toBe(end);
      expect(end).toBeGreaterThanOrEqual(start + maxSamples - 5 * rate);
      expect(pauses.some(([from, to]) => end > from && end < to)).toBe(true);
    }
  });

  it('still cuts within the limit when there is no pause at all', () => {
    const next = random(1);
    const samples = Int16Array.from({ length: 16000 * 30 }, () => Math.round((next() - 0.5) * 20000));
    const ranges = planSegments(samples, { maxSamples: 16000 * 10, searchWindowSeconds: 2 });
    expect(ranges.length).toBe(4);
    for (const { start, end } of ranges) expect(end - start).toBeLessThanOrEqual(160000);
    expect(ranges.at(-1)!.end).toBe(samples.length);
  });
});

describe('prepareForTranscription on a long recording', async () => {
  // About 5 minutes of real speech: the voice note again and again with 0.6 s pauses of faint room noise.
  const speech = toInt16((await decodeAudio(fixture('voice-note.ogg'), 'ogg-opus', { opusSampleRate: 16000 })).channels[0]!);
  const pause = 0.6 * 16000;
  const repeats = Math.ceil((300 * 16000) / (speech.length + pause));
  const recording = new Int16Array(repeats * (speech.length + pause));
  const next = random(9);
  for (let r = 0; r < repeats; r++) {
    const at = r * (speech.length + pause);
    recording.set(speech, at);
    for (let i = 0; i < pause; i++) recording[at + speech.length + i] = Math.round((next() - 0.5) * 30);
  }

  const segments = prepareForTranscription(recording);

  it('needs splitting: as one WAV its data URL would pass 10 MiB', () => {
    expect(dataUrlLength('audio/wav', 44 + recording.length * 2)).toBeGreaterThan(DEFAULT_MAX_BASE64_BYTES);
    expect(segments.length).toBe(2);
  });

  it('makes every segment a 16 kHz mono WAV whose data URL is within the limit', () => {
    for (const segment of segments) {
      expect(segment.mime).toBe('audio/wav');
      expect(dataUrlLength(segment.mime, segment.data.length)).toBeLessThanOrEqual(DEFAULT_MAX_BASE64_BYTES);
      const audio = readWav(segment.data);
      expect(audio.sampleRate).toBe(16000);
      expect(audio.channels).toHaveLength(1);
    }
  });

  it('loses and reorders nothing: the segments put back together are the recording', () => {
    expect(segments.reduce((sum, s) => sum + s.durationSeconds, 0)).toBeCloseTo(recording.length / 16000, 9);
    let at = 0;
    for (const segment of segments) {
      expect(segment.startSeconds).toBeCloseTo(at / 16000, 9);
      const samples = segment.data.subarray(44);
      expect(Buffer.compare(samples, Buffer.from(recording.buffer, at * 2, samples.length))).toBe(0);
      at += samples.length / 2;
    }
    expect(at).toBe(recording.length);
  });

  it('cuts where it is quiet, not in the middle of a word', () => {
    const cut = Math.round(segments[1]!.startSeconds * 16000);
    const around = Array.from(recording.subarray(cut - 800, cut + 800));
    expect(rms(around)).toBeLessThan(0.05 * rms(speech));
    expect(segments[0]!.durationSeconds).toBeGreaterThan(245.76 - 5);
  });
});

describe('transcribeSegments', () => {
  it('keeps at most `concurrency` requests in flight and joins the text in recording order', async () => {
    const next = random(3);
    let inFlight = 0;
    let most = 0;
    const segments = Array.from({ length: 9 }, (_, i) => i);
    const text = await transcribeSegments(
      segments,
      async (segment) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2 + next() * 20));
        inFlight--;
        return ` part ${segment} `;
      },
      { concurrency: 3 },
    );
    expect(most).toBe(3);
    expect(text).toBe(segments.map((i) => `part ${i}`).join(' '));
  });

  it('fails as a whole on the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    const outcome = transcribeSegments(
      [0, 1, 2, 3, 4, 5],
      async (segment) => {
        started.push(segment);
        if (segment === 1) throw new Error('service said no');
        await new Promise((resolve) => setTimeout(resolve, 5));
        return 'ok';
      },
      { concurrency: 2 },
    );
    await expect(outcome).rejects.toThrow('service said no');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(started).toEqual([0, 1]);
  });

  it('joins Chinese without spaces and skips empty parts', () => {
    expect(joinTranscripts(['你好，', '世界。', '', ' Hello ', 'world'])).toBe('你好，世界。 Hello world');
  });
});
