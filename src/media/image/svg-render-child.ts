import sharp from 'sharp';
import { MAX_DECODE_PIXELS } from './image-limits.ts';

/** The child process of render-svg.ts: an SVG on stdin, rendered at the density given as argument, as PNG on stdout. */
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
try {
  const png = await sharp(Buffer.concat(chunks), { density: Number(process.argv[2]), limitInputPixels: MAX_DECODE_PIXELS })
    .png()
    .toBuffer();
  process.stdout.write(png);
} catch (error) {
  process.stderr.write(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
