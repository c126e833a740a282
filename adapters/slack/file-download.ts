/**
 * Slack's private files (url_private / url_private_download) are served only to a request carrying the bot token;
 * without it Slack redirects to its sign-in page, which a careless client would read as the file. The token goes
 * only to Slack's own hosts, redirects are followed by hand so it never leaks to another host, and an HTML page
 * where a file was expected (or reached by a redirect, for a shared web page) fails with a message that says what to fix.
 */
import { HeraldError } from '../../src/errors.ts';
import { DOWNLOAD_LIMITS, downloadFile, type FileRequest } from '../../src/media/download.ts';

export interface DownloadOptions {
  botToken: string;
  /** Hosts besides *.slack.com and *.slack-gov.com that may see the token (the SLACK_API_URL host). */
  extraTokenHosts?: readonly string[];
  /** The file is itself a web page: HTML is then the sign-in page only when Slack redirected to it. */
  htmlExpected?: boolean;
}

const MAX_REDIRECTS = 5;

export class SlackFileError extends HeraldError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: 'slack_file', cause });
  }
}

export function mayCarryToken(url: URL, extraHosts: readonly string[] = []): boolean {
  if (url.protocol !== 'https:' && !extraHosts.includes(url.host)) return false;
  const host = url.hostname;
  return (
    host === 'slack.com' ||
    host.endsWith('.slack.com') ||
    host === 'slack-gov.com' ||
    host.endsWith('.slack-gov.com') ||
    extraHosts.includes(url.host)
  );
}

/** A private Slack file as a download: the bot token goes along, redirects are followed by hand. */
export function slackFileRequest(fileUrl: string, name: string, options: DownloadOptions, size?: number): FileRequest {
  let hops = 0;
  return {
    name,
    ...(size !== undefined && { size }),
    async open(signal) {
      let url = new URL(fileUrl);
      for (hops = 0; ; hops++) {
        const headers: Record<string, string> = mayCarryToken(url, options.extraTokenHosts) ? { authorization: `Bearer ${options.botToken}` } : {};
        let response: Response;
        try {
          response = await fetch(url, { headers, redirect: 'manual', signal });
        } catch (error) {
          if (signal.aborted) throw error;
          throw new SlackFileError(`I couldn't download “${name}” from Slack (${(error as Error).message}).`, error);
        }
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel();
          if (hops >= MAX_REDIRECTS) throw new SlackFileError(`Slack redirected the download of “${name}” too many times.`);
          url = new URL(location, url);
          continue;
        }
        if (!response.ok) {
          await response.body?.cancel();
          throw new SlackFileError(`Slack refused the download of “${name}” (HTTP ${response.status}).`);
        }
        return response;
      }
    },
    verify(data, response) {
      if ((!options.htmlExpected || hops > 0) && looksLikeHtml(response.headers.get('content-type'), data)) {
        throw new SlackFileError(
          `Slack sent its sign-in page instead of “${name}”. The app needs the files:read scope and must be in this conversation to read shared files.`,
        );
      }
    },
  };
}

/** Downloads a private Slack file's bytes with the bot token. */
export async function downloadSlackFile(
  fileUrl: string,
  name: string,
  options: DownloadOptions & { size?: number; maxBytes?: number; signal?: AbortSignal },
): Promise<Buffer> {
  const { size, maxBytes = DOWNLOAD_LIMITS.fileBytes, signal, ...slack } = options;
  const limits = { ...DOWNLOAD_LIMITS, fileBytes: maxBytes };
  return (await downloadFile(slackFileRequest(fileUrl, name, slack, size), { limits, ...(signal && { signal }) })).data;
}

function looksLikeHtml(contentType: string | null, bytes: Buffer): boolean {
  if (contentType?.toLowerCase().startsWith('text/html')) return true;
  const head = bytes.subarray(0, 512).toString('utf8').trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}
