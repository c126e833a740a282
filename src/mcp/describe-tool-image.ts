import { describe } from '../capabilities/describe.ts';
import type { CapabilityDeps } from '../capabilities/deps.ts';
import { prepareImage } from '../media/image/prepare-image.ts';
import type { DescribeImage } from './tool-result.ts';

const PROMPT = 'A tool returned this image. Describe what it shows, and transcribe any text in it, for someone who cannot see it.';

/** Pictures from tools go to the vision model like any picture: checked and converted first, then described. */
export function describeToolImage(deps: CapabilityDeps): DescribeImage {
  return async (image, signal) => {
    const prepared = await prepareImage(image.data, { maxPixels: deps.config.media.maxImagePixels });
    const result = await describe(deps, { images: [prepared], prompt: PROMPT, stream: false, signal }).finalResult();
    return { text: result.content.trim(), usage: result.usage };
  };
}
