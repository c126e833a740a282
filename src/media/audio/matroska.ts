import { MediaError } from '../../errors.ts';
import { MAX_CHANNELS, MAX_SAMPLE_RATE } from './audio-limits.ts';
import { readElementHeader, readFloat, readInt, readString, readUint, readVint, UNKNOWN_SIZE } from './ebml.ts';

export interface MatroskaTrack {
  number: number;
  /** 1 video, 2 audio, 17 subtitles (Matroska TrackType). */
  type: number;
  codecId: string;
  codecPrivate?: Uint8Array;
  /** Nanoseconds of decoder output to drop at the start (Opus pre-skip). */
  codecDelayNs: number;
  samplingFrequency: number;
  channels: number;
}

export interface MatroskaPacket {
  data: Uint8Array;
  /** Nanoseconds of decoded output to drop from the end of this block (set on a stream's last block). */
  discardPaddingNs: number;
}

export interface MatroskaInfo {
  docType: string;
  tracks: MatroskaTrack[];
}

const ID = {
  ebml: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackNumber: 0xd7,
  trackType: 0x83,
  codecId: 0x86,
  codecPrivate: 0x63a2,
  codecDelay: 0x56aa,
  audio: 0xe1,
  samplingFrequency: 0xb5,
  channels: 0x9f,
  cluster: 0x1f43b675,
  simpleBlock: 0xa3,
  blockGroup: 0xa0,
  block: 0xa1,
  discardPadding: 0x75a2,
} as const;

// Elements whose children we walk in place. Segment and Cluster may have unknown size
// (browsers' MediaRecorder streams them), so they are entered rather than bounded.
const ENTERED = new Set<number>([ID.segment, ID.cluster]);

function damaged(detail: string): MediaError {
  return new MediaError(`This WebM/Matroska file is damaged or incomplete (${detail}).`, { code: 'corrupt' });
}

function forEachChild(bytes: Uint8Array, start: number, end: number, visit: (id: number, start: number, size: number) => void): void {
  let at = start;
  while (at < end) {
    const el = readElementHeader(bytes, at);
    if (!el || el.size === UNKNOWN_SIZE || el.start + el.size > end) return;
    visit(el.id, el.start, el.size);
    at = el.start + el.size;
  }
}

function parseTrackEntry(bytes: Uint8Array, start: number, end: number): MatroskaTrack {
  const track: MatroskaTrack = { number: 0, type: 0, codecId: '', codecDelayNs: 0, samplingFrequency: 0, channels: 1 };
  forEachChild(bytes, start, end, (id, s, size) => {
    if (id === ID.trackNumber) track.number = readUint(bytes, s, size);
    else if (id === ID.trackType) track.type = readUint(bytes, s, size);
    else if (id === ID.codecId) track.codecId = readString(bytes, s, size);
    else if (id === ID.codecPrivate) track.codecPrivate = bytes.subarray(s, s + size);
    else if (id === ID.codecDelay) track.codecDelayNs = readUint(bytes, s, size);
    else if (id === ID.audio) {
      forEachChild(bytes, s, s + size, (aid, as, asize) => {
        if (aid === ID.samplingFrequency) track.samplingFrequency = readFloat(bytes, as, asize);
        else if (aid === ID.channels) track.channels = readUint(bytes, as, asize);
      });
    }
  });
  if (track.type === 2 && (!Number.isFinite(track.samplingFrequency) || track.samplingFrequency > MAX_SAMPLE_RATE || track.samplingFrequency < 0)) {
    throw damaged(`an audio track at ${track.samplingFrequency} Hz`);
  }
  if (track.type === 2 && (track.channels === 0 || track.channels > MAX_CHANNELS)) throw damaged(`an audio track of ${track.channels} channels`);
  return track;
}

interface Walker {
  onTracks(tracks: MatroskaTrack[]): boolean;
  onBlock?(payload: Uint8Array, discardPaddingNs: number): void;
}

/**
 * Walks the file in order; `onTracks` returning false stops the walk.
 * A truncated file simply ends the walk: everything complete before the cut is kept.
 */
function walk(bytes: Uint8Array, walker: Walker): { docType: string; sawTracks: boolean } {
  const head = readElementHeader(bytes, 0);
  if (!head || head.id !== ID.ebml || head.size === UNKNOWN_SIZE) throw damaged('no EBML header');
  let docType = '';
  forEachChild(bytes, head.start, Math.min(bytes.length, head.start + head.size), (id, s, size) => {
    if (id === ID.docType) docType = readString(bytes, s, size);
  });
  let sawTracks = false;
  let at = head.start + head.size;
  while (at < bytes.length) {
    const el = readElementHeader(bytes, at);
    if (!el) break;
    if (ENTERED.has(el.id)) {
      at = el.start;
      continue;
    }
    if (el.size === UNKNOWN_SIZE) throw damaged('an element of unknown size');
    const end = el.start + el.size;
    if (end > bytes.length) break;
    if (el.id === ID.tracks) {
      const tracks: MatroskaTrack[] = [];
      forEachChild(bytes, el.start, end, (id, s, size) => {
        if (id === ID.trackEntry) tracks.push(parseTrackEntry(bytes, s, s + size));
      });
      sawTracks = true;
      if (!walker.onTracks(tracks)) break;
    } else if (el.id === ID.simpleBlock) {
      walker.onBlock?.(bytes.subarray(el.start, end), 0);
    } else if (el.id === ID.blockGroup) {
      let block: Uint8Array | undefined;
      let discard = 0;
      forEachChild(bytes, el.start, end, (id, s, size) => {
        if (id === ID.block) block = bytes.subarray(s, s + size);
        else if (id === ID.discardPadding) discard = readInt(bytes, s, size);
      });
      if (block) walker.onBlock?.(block, discard);
    }
    at = end;
  }
  return { docType, sawTracks };
}

/** Reads the EBML header and track list without touching the media data. */
export function readMatroskaInfo(bytes: Uint8Array): MatroskaInfo {
  let tracks: MatroskaTrack[] = [];
  const { docType, sawTracks } = walk(bytes, {
    onTracks: (found) => {
      tracks = found;
      return false;
    },
  });
  if (!sawTracks) throw damaged('no track list');
  return { docType, tracks };
}

/** Splits a (Simple)Block payload into its frames if it belongs to `trackNumber`. */
function blockFrames(block: Uint8Array, trackNumber: number): Uint8Array[] {
  const track = readVint(block, 0, false);
  if (!track || track.value !== trackNumber) return [];
  const headerEnd = track.length + 3;
  if (headerEnd > block.length) return [];
  const lacing = (block[track.length + 2]! >> 1) & 3;
  if (lacing === 0) return [block.subarray(headerEnd)];
  const count = block[headerEnd]! + 1;
  let at = headerEnd + 1;
  const sizes: number[] = [];
  if (lacing === 1) {
    // Xiph lacing: each size is a run of 255s plus a final byte.
    for (let i = 0; i < count - 1; i++) {
      let size = 0;
      let b: number;
      do {
        b = block[at++]!;
        size += b;
      } while (b === 255 && at < block.length);
      sizes.push(size);
    }
  } else if (lacing === 3) {
    // EBML lacing: first size as a vint, then signed differences.
    const first = readVint(block, at, false);
    if (!first) return [];
    sizes.push(first.value);
    at += first.length;
    for (let i = 1; i < count - 1; i++) {
      const diff = readVint(block, at, false);
      if (!diff) return [];
      const bias = 2 ** (7 * diff.length - 1) - 1;
      sizes.push(sizes[i - 1]! + diff.value - bias);
      at += diff.length;
    }
  } else {
    const each = (block.length - at) / count;
    if (!Number.isInteger(each)) return [];
    for (let i = 0; i < count - 1; i++) sizes.push(each);
  }
  const frames: Uint8Array[] = [];
  for (const size of sizes) {
    if (size < 0 || at + size > block.length) return frames;
    frames.push(block.subarray(at, at + size));
    at += size;
  }
  frames.push(block.subarray(at));
  return frames;
}

/** The first audio track, with every frame of it in order. */
export function demuxMatroskaAudio(bytes: Uint8Array): { track: MatroskaTrack; packets: MatroskaPacket[] } {
  let track: MatroskaTrack | undefined;
  const packets: MatroskaPacket[] = [];
  walk(bytes, {
    onTracks: (tracks) => {
      track ??= tracks.find((t) => t.type === 2);
      return true;
    },
    onBlock: (block, discardPaddingNs) => {
      if (!track) return;
      const frames = blockFrames(block, track.number);
      frames.forEach((data, i) => packets.push({ data, discardPaddingNs: i === frames.length - 1 ? discardPaddingNs : 0 }));
    },
  });
  if (!track) throw damaged('no audio track');
  return { track, packets };
}
