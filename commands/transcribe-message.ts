import { filesAction } from './message-action.ts';
import { transcribeRecordings } from './transcribe.ts';

export const transcribeMessage = filesAction({
  id: 'transcribe',
  name: 'Transcribe',
  description: "Transcribe this message's voice message or audio files",
  kind: 'audio',
  none: 'That message has no voice message or audio file to transcribe.',
  answer: transcribeRecordings,
});
