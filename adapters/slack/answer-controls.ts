/**
 * The controls Herald puts on an answer: Slack's feedback buttons (👍/👎, a `context_actions` block) under the
 * finished answer, and a Stop button on a posted-and-edited answer while it grows. Each button's value names the
 * answer, so a press can be handled by any instance.
 */
import { type FeedbackRating, FEEDBACK_RATINGS, isAnswerId } from '../../src/conversation/feedback.ts';
import type { ContextBlock } from './citation-blocks.ts';

export const FEEDBACK_ACTION = 'herald_feedback';
export const STOP_ACTION = 'herald_stop';

export interface FeedbackBlock {
  type: 'context_actions';
  elements: Array<{
    type: 'feedback_buttons';
    action_id: string;
    positive_button: FeedbackButton;
    negative_button: FeedbackButton;
  }>;
}

interface FeedbackButton {
  text: { type: 'plain_text'; text: string };
  value: string;
  accessibility_label: string;
}

export interface StopBlock {
  type: 'actions';
  elements: Array<{ type: 'button'; action_id: string; text: { type: 'plain_text'; text: string }; value: string }>;
}

/** What can go under an answer's text: its sources, its feedback buttons, its Stop button. */
export type AnswerBlock = ContextBlock | FeedbackBlock | StopBlock;

export function feedbackBlock(answerId: string): FeedbackBlock {
  return {
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_ACTION,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          value: `positive:${answerId}`,
          accessibility_label: 'This answer was helpful',
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          value: `negative:${answerId}`,
          accessibility_label: 'This answer was not helpful',
        },
      },
    ],
  };
}

/** The rating and answer a feedback button's value names; undefined for anything else. */
export function parseFeedbackValue(value: unknown): { rating: FeedbackRating; answerId: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const colon = value.indexOf(':');
  const rating = value.slice(0, colon) as FeedbackRating;
  const answerId = value.slice(colon + 1);
  if (colon < 0 || !FEEDBACK_RATINGS.includes(rating) || !isAnswerId(answerId)) return undefined;
  return { rating, answerId };
}

/** The Stop button, whose value is the key of the question being answered. */
export function stopBlock(questionKey: string): StopBlock {
  return {
    type: 'actions',
    elements: [{ type: 'button', action_id: STOP_ACTION, text: { type: 'plain_text', text: '⏹ Stop' }, value: questionKey }],
  };
}

export function isFeedbackBlock(block: AnswerBlock): block is FeedbackBlock {
  return block.type === 'context_actions';
}
