import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

const readOnly = { readOnlyHint: true };

/** A one-pixel red PNG. */
const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** The tools of "acme", a made-up issue tracker: raw JSON schemas, so `$ref`, `anyOf` and dotted names are the server's own. */
export const ACME_TOOLS: Tool[] = [
  {
    name: 'issues.search',
    description: 'Search the issues of the tracker.',
    annotations: readOnly,
    inputSchema: {
      type: 'object',
      $defs: { state: { type: 'string', enum: ['open', 'closed'], description: 'Issue state' } },
      properties: {
        query: { type: 'string', description: 'Words to look for' },
        state: { $ref: '#/$defs/state' },
        limit: { anyOf: [{ type: 'integer', minimum: 1, maximum: 50 }, { type: 'null' }], description: 'At most this many' },
        filter: {
          anyOf: [
            { type: 'object', properties: { label: { type: 'string' } }, required: ['label'], additionalProperties: false },
            { type: 'object', properties: { author: { type: 'string' } }, required: ['author'], additionalProperties: false },
          ],
        },
      },
      required: ['query', 'state'],
      additionalProperties: false,
    },
  },
  {
    name: 'issues_search',
    description: 'The old search, by id only.',
    annotations: readOnly,
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } } },
  },
  { name: 'pid', description: "The server process's id.", annotations: readOnly, inputSchema: { type: 'object', properties: {} } },
  {
    name: 'crash',
    description: 'Exits the server process in the middle of the call.',
    annotations: readOnly,
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'sleep',
    description: 'Answers after ms milliseconds, ignoring cancellation.',
    annotations: readOnly,
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
  },
  {
    name: 'big',
    description: 'Returns chars characters of text.',
    annotations: readOnly,
    inputSchema: { type: 'object', properties: { chars: { type: 'integer' } }, required: ['chars'] },
  },
  { name: 'env', description: "The server process's environment, as JSON.", annotations: readOnly, inputSchema: { type: 'object', properties: {} } },
  { name: 'picture', description: 'Returns a picture.', annotations: readOnly, inputSchema: { type: 'object', properties: {} } },
  { name: 'broken', description: 'Always fails.', annotations: readOnly, inputSchema: { type: 'object', properties: {} } },
  {
    name: 'write_note',
    description: 'Writes a note (changes the world).',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
];

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  switch (name) {
    case 'issues.search':
      return text(`found 2 issues for ${JSON.stringify(args)}`);
    case 'issues_search':
      return text(`issue ${String(args.id)}`);
    case 'pid':
      return text(`pid ${process.pid}`);
    case 'crash':
      process.stderr.write('acme: crashing on purpose\n');
      process.exit(3);
      break;
    case 'sleep':
      await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
      return text('slept');
    case 'big':
      return text('x'.repeat(Number(args.chars)));
    case 'env':
      return text(JSON.stringify(process.env));
    case 'picture':
      return {
        content: [
          { type: 'text', text: 'here it is:' },
          { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
        ],
      };
    case 'broken':
      return { isError: true, content: [{ type: 'text', text: 'the database is on fire' }] };
    case 'write_note':
      return text(`noted: ${String(args.text)}`);
  }
  return { isError: true, content: [{ type: 'text', text: `unknown tool ${name}` }] };
}

/** One page of a tool listing: the tools after `cursor`, and the next page's cursor while there are more. */
export type AcmeListing = (cursor: string | undefined) => { tools: Tool[]; nextCursor?: string };

/**
 * A low-level SDK server offering ACME_TOOLS, or what `listing` pages out (no validation of its own: Herald must
 * check arguments first). It announces that its tool list may change.
 */
export function acmeServer(listing: AcmeListing = () => ({ tools: ACME_TOOLS })): Server {
  const server = new Server({ name: 'acme', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => listing(request.params?.cursor));
  server.setRequestHandler(CallToolRequestSchema, (request) => call(request.params.name, request.params.arguments ?? {}));
  return server;
}
