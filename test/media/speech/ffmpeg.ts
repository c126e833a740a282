import { spawnSync } from 'node:child_process';

export const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0 && spawnSync('ffprobe', ['-version']).status === 0;
export const ffmpegNote = hasFfmpeg ? '' : ' (skipped: ffmpeg/ffprobe not on PATH; CI installs them)';
