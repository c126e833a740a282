/**
 * Band-limited resampling with a Kaiser-windowed sinc, as a stream: push chunks, then flush.
 * Downsampling keeps the band up to 7/8 of the new Nyquist frequency flat and reaches 65 dB of
 * attenuation at 9/8 of it: the little that folds back lands above the passband (7–8 kHz at 16 kHz),
 * which halves the filter length for speech that matters below 7 kHz. Upsampling stops at the old Nyquist.
 */
export interface Resampler {
  /** Output for the input so far; at equal rates this is the input itself. */
  push(input: Float32Array): Float32Array;
  flush(): Float32Array;
}

const STOPBAND_DB = 65;
const KAISER_BETA = 0.1102 * (STOPBAND_DB - 8.7);
// Beyond this many filter phases (odd rate pairs like 47999 to 16000) the phase is rounded to the nearest of these.
const MAX_PHASES = 1024;

/** Output n sits at input position n * down / up; `taps` holds one windowed sinc per fractional position. */
interface FilterBank {
  up: number;
  down: number;
  phases: number;
  half: number;
  taps: Float32Array;
}

const banks = new Map<string, FilterBank>();

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 50 && term > sum * 1e-12; k++) {
    term *= q / (k * k);
    sum += term;
  }
  return sum;
}

function filterBank(fromRate: number, toRate: number): FilterBank {
  const key = `${fromRate}:${toRate}`;
  const cached = banks.get(key);
  if (cached) return cached;
  const g = gcd(fromRate, toRate);
  const up = toRate / g;
  const down = fromRate / g;
  const phases = Math.min(up, MAX_PHASES);
  const nyquist = Math.min(fromRate, toRate) / 2;
  const passHz = (nyquist * 7) / 8;
  const stopHz = toRate < fromRate ? (nyquist * 9) / 8 : nyquist;
  const cutoff = (passHz + stopHz) / fromRate; // twice the -6 dB frequency, in cycles per input sample
  const length = (STOPBAND_DB - 7.95) / (2.285 * 2 * Math.PI * ((stopHz - passHz) / fromRate));
  const half = Math.ceil(length / 2);
  const width = 2 * half;
  const taps = new Float32Array(phases * width);
  const i0Beta = besselI0(KAISER_BETA);
  for (let p = 0; p < phases; p++) {
    let sum = 0;
    for (let j = 0; j < width; j++) {
      const t = p / phases + half - 1 - j; // distance from the output position to input sample j of the window
      const x = t / half;
      const window = Math.abs(x) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - x * x)) / i0Beta;
      const arg = Math.PI * cutoff * t;
      const sinc = t === 0 ? 1 : Math.sin(arg) / arg;
      const h = cutoff * sinc * window;
      taps[p * width + j] = h;
      sum += h;
    }
    for (let j = 0; j < width; j++) taps[p * width + j]! /= sum;
  }
  const bank = { up, down, phases, half, taps };
  banks.set(key, bank);
  return bank;
}

export function createResampler(fromRate: number, toRate: number): Resampler {
  if (fromRate === toRate) return { push: (input) => input, flush: () => new Float32Array(0) };
  const { phases, up, down, half, taps } = filterBank(fromRate, toRate);
  const width = 2 * half;
  // Input samples from absolute index `bufStart` on; indices before 0 are silence.
  let buf = new Float32Array(half);
  let bufStart = -half;
  let bufLength = half;
  let inputTotal = 0;
  let produced = 0;
  // Position of the next output in input samples: k0 + frac / up.
  let k0 = 0;
  let frac = 0;

  const append = (input: Float32Array) => {
    if (bufLength + input.length > buf.length) {
      const grown = new Float32Array(Math.max(bufLength + input.length, buf.length * 2));
      grown.set(buf.subarray(0, bufLength));
      buf = grown;
    }
    buf.set(input, bufLength);
    bufLength += input.length;
  };

  const produce = (limit: number): Float32Array => {
    const lastIndex = bufStart + bufLength - 1;
    // Outputs whose window [k0 - half + 1, k0 + half], plus one sample for a rounded-up phase, is available.
    let count = 0;
    {
      let k = k0;
      let f = frac;
      while (produced + count < limit && k + half + 1 <= lastIndex) {
        count++;
        f += down;
        const adv = Math.floor(f / up);
        k += adv;
        f -= adv * up;
      }
    }
    const out = new Float32Array(count);
    for (let n = 0; n < count; n++) {
      let phase = phases === up ? frac : Math.round((frac * phases) / up);
      let base = k0 - half + 1 - bufStart;
      if (phase === phases) {
        phase = 0;
        base += 1;
      }
      const t = phase * width;
      // Four independent sums let the JIT pipeline the multiply-adds.
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let j = 0;
      for (; j + 3 < width; j += 4) {
        a0 += taps[t + j]! * buf[base + j]!;
        a1 += taps[t + j + 1]! * buf[base + j + 1]!;
        a2 += taps[t + j + 2]! * buf[base + j + 2]!;
        a3 += taps[t + j + 3]! * buf[base + j + 3]!;
      }
      for (; j < width; j++) a0 += taps[t + j]! * buf[base + j]!;
      out[n] = a0 + a1 + a2 + a3;
      frac += down;
      const adv = Math.floor(frac / up);
      k0 += adv;
      frac -= adv * up;
    }
    produced += count;
    const keepFrom = k0 - half + 1 - bufStart;
    if (keepFrom > 0) {
      buf.copyWithin(0, keepFrom, bufLength);
      bufLength -= keepFrom;
      bufStart += keepFrom;
    }
    return out;
  };

  return {
    push(input) {
      append(input);
      inputTotal += input.length;
      return produce(Infinity);
    },
    flush() {
      const total = Math.round((inputTotal * up) / down);
      append(new Float32Array(half + 2));
      return produce(total);
    },
  };
}
