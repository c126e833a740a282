import type { ReplyRecord } from '../conversation/types.ts';
import type { Metrics, TokenKind } from './metrics.ts';

const TOKEN_FIELDS: ReadonlyArray<[TokenKind, keyof ReplyRecord['usage']]> = [
  ['prompt', 'promptTokens'],
  ['completion', 'completionTokens'],
  ['reasoning', 'reasoningTokens'],
  ['cached', 'cachedTokens'],
  ['image', 'imageTokens'],
  ['audio', 'audioTokens'],
];

/** Turns the engine's finished-reply records into the Prometheus metrics. */
export function replyMetricsRecorder(metrics: Metrics): (record: ReplyRecord) => void {
  return (record) => {
    const { capability, platform, outcome, usage } = record;
    metrics.requests.inc({ capability, platform, outcome });
    if (outcome !== 'ok') metrics.serviceErrors.inc({ code: outcome });
    if (record.firstTextMs !== undefined) metrics.timeToFirstToken.observe({ capability }, record.firstTextMs / 1000);
    metrics.replyDuration.observe({ capability }, record.durationMs / 1000);
    for (const [kind, field] of TOKEN_FIELDS) if (usage[field] > 0) metrics.tokens.inc({ kind }, usage[field]);
    if (usage.webSearchCalls > 0) metrics.webSearchCalls.inc(usage.webSearchCalls);
    if (usage.audioSeconds > 0) metrics.audioSeconds.inc({ direction: 'in' }, usage.audioSeconds);
  };
}
