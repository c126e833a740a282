/**
 * Slack turns `<!channel>`, `<!here>`, `<!everyone>`, `<!subteam^…>` and `<@U…>` in a message into notifications.
 * Text Herald posts as standard markdown (`markdown_text`, markdown blocks) is its users' and the model's words, so a
 * zero-width joiner goes after each `<` (or an entity spelling one) that would open such a token: the text reads the
 * same and pings nobody. The mrkdwn fallback needs none of this: it escapes every `<`.
 */

const ZWJ = '\u200D';
const OPENER = /(<|&lt;|&#0*60;|&#[xX]0*3[cC];)(?=[!@])/g;
/** A piece ending in the start of an opener: the next piece could complete it, so it is broken here already. */
const PARTIAL_OPENER_AT_END = /(?:<|&(?:l(?:t;?)?|#(?:0*(?:6(?:0;?)?)?|[xX](?:0*(?:3(?:[cC];?)?)?)?)?)?)$/;

/** `text` with every mention and broadcast defused; safe on any piece of a text sent in pieces (a stream's deltas). */
export function defuseMentions(text: string): string {
  const defused = text.replace(OPENER, `$1${ZWJ}`);
  return PARTIAL_OPENER_AT_END.test(defused) ? defused + ZWJ : defused;
}
