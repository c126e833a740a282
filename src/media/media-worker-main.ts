import { parentPort } from 'node:worker_threads';
import { decodeBmp } from './image/bmp-decode.ts';
import { decodeHeicPixels } from './image/heic-pixels.ts';
import type { RawImage } from './image/raw-image.ts';
import { decodePdfPageImages, type PdfPagePixels } from './document/pdf-page-pixels.ts';
import { readPdf, type PdfText } from './document/read-pdf.ts';
import { describeWorkerFailure, type WorkerFailure } from './media-worker-failure.ts';

/** The jobs a media worker runs (see media-worker.ts); the input bytes are moved to the worker, not copied. */
export type MediaTask =
  | { kind: 'bmp'; bytes: Uint8Array }
  | { kind: 'heic'; bytes: Uint8Array }
  | { kind: 'pdf-pages'; bytes: Uint8Array; maxPages: number; maxImagePixels: number }
  | { kind: 'pdf-text'; name: string; bytes: Uint8Array; maxChars: number; maxPages: number };

interface Results {
  bmp: RawImage;
  heic: RawImage;
  'pdf-pages': { pages: number; images: PdfPagePixels[]; oversized: number };
  'pdf-text': PdfText;
}

export type MediaTaskResult<K extends MediaTask['kind']> = Results[K];

export type WorkerReply<K extends MediaTask['kind']> = { result: MediaTaskResult<K> } | { failure: WorkerFailure };

async function run(task: MediaTask): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  switch (task.kind) {
    case 'bmp': {
      const image = decodeBmp(task.bytes);
      return { result: image, transfer: [image.data.buffer as ArrayBuffer] };
    }
    case 'heic': {
      const image = await decodeHeicPixels(task.bytes);
      return { result: image, transfer: [image.data.buffer as ArrayBuffer] };
    }
    case 'pdf-pages': {
      const found = await decodePdfPageImages(task.bytes, task.maxPages, task.maxImagePixels);
      return { result: found, transfer: found.images.map((image) => image.data.buffer as ArrayBuffer) };
    }
    case 'pdf-text':
      return { result: await readPdf(task.name, task.bytes, task.maxChars, task.maxPages), transfer: [] };
  }
}

parentPort!.on('message', (task: MediaTask) => {
  run(task).then(
    ({ result, transfer }) => parentPort!.postMessage({ result }, transfer),
    (error: unknown) => parentPort!.postMessage({ failure: describeWorkerFailure(error) }),
  );
});
