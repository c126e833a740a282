import { describeImages } from './describe.ts';
import { filesAction } from './message-action.ts';

export const describeMessage = filesAction({
  id: 'describe',
  name: 'Describe',
  description: "Describe this message's images",
  kind: 'image',
  none: 'That message has no image to describe.',
  answer: describeImages,
});
