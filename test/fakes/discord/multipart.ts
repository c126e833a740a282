import { DiscordErrors } from './errors.ts';

export interface UploadedFile {
  /** The form field name, e.g. `files[0]`. */
  field: string;
  /** n of `files[n]`; files under other field names are numbered by their order. */
  index: number;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

export interface ParsedBody {
  payload: unknown;
  files: UploadedFile[];
}

/**
 * Reads a request body as Discord does: JSON, or multipart/form-data whose `payload_json` part holds the JSON
 * and whose file parts (`files[n]`) hold uploads. Plain form fields stand in for the JSON when there is no
 * `payload_json`.
 */
export async function parseBody(raw: Buffer, contentType: string | undefined): Promise<ParsedBody> {
  if (raw.length === 0) return { payload: null, files: [] };
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'multipart/form-data') return parseMultipart(raw, contentType as string);
  return { payload: parseJson(raw.toString('utf8')), files: [] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw DiscordErrors.invalidJson();
  }
}

async function parseMultipart(raw: Buffer, contentType: string): Promise<ParsedBody> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw DiscordErrors.invalidJson();
  }
  const files: UploadedFile[] = [];
  const fields: Record<string, unknown> = {};
  let payload: unknown;
  let order = 0;
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') {
      if (field === 'payload_json') payload = parseJson(value);
      else fields[field] = value;
      continue;
    }
    const indexed = /^files\[(\d+)\]$/.exec(field);
    files.push({
      field,
      index: indexed ? Number(indexed[1]) : order,
      filename: value.name,
      contentType: value.type || 'application/octet-stream',
      bytes: Buffer.from(await value.arrayBuffer()),
    });
    order++;
  }
  return { payload: payload === undefined ? fields : payload, files };
}
