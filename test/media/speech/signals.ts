/** Deterministic uniform numbers in [0, 1) (mulberry32), so failures reproduce. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** s16 sine: amplitude in 16-bit units. */
export function sineInt16(frequency: number, sampleRate: number, length: number, amplitude = 16000, phase = 0.3): Int16Array {
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate + phase));
  }
  return out;
}

/**
 * Speech-like audio in -1..1: voiced syllables (a gliding 90–230 Hz pitch with formant-shaped harmonics)
 * about four per second, noisy fricatives between them, and a pause every few seconds.
 */
export function speechLike(seconds: number, sampleRate: number, seed = 7): Float32Array {
  const random = seededRandom(seed);
  const out = new Float32Array(Math.round(seconds * sampleRate));
  const formants = [600, 1200, 2600, 3400];
  let i = 0;
  let phase = 0;
  while (i < out.length) {
    const pause = random() < 0.12;
    const length = Math.round(sampleRate * (pause ? 0.3 + 0.4 * random() : 0.12 + 0.18 * random()));
    const fricative = !pause && random() < 0.3;
    const pitch = 90 + 140 * random();
    const glide = (random() - 0.5) * 60;
    const level = 0.15 + 0.25 * random();
    for (let k = 0; k < length && i < out.length; k++, i++) {
      const envelope = Math.sin((Math.PI * k) / length) ** 2;
      if (pause) {
        out[i] = (random() - 0.5) * 0.002;
        continue;
      }
      if (fricative) {
        out[i] = (random() - 0.5) * level * 0.5 * envelope;
        continue;
      }
      const f0 = pitch + (glide * k) / length;
      phase += (2 * Math.PI * f0) / sampleRate;
      let v = 0;
      for (let h = 1; f0 * h < sampleRate / 2 && h <= 40; h++) {
        const f = f0 * h;
        let weight = 0;
        for (const formant of formants) weight += 1 / (1 + ((f - formant) / 150) ** 2);
        v += (weight / h) * Math.sin(h * phase);
      }
      out[i] = level * envelope * v * 0.5;
    }
  }
  return out;
}

export function toInt16Array(samples: Float32Array): Int16Array {
  return Int16Array.from(samples, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));
}

/** Little-endian bytes of s16 samples, independent of the host's byte order. */
export function int16Bytes(samples: Int16Array): Buffer {
  const bytes = Buffer.alloc(samples.length * 2);
  samples.forEach((v, i) => bytes.writeInt16LE(v, i * 2));
  return bytes;
}
