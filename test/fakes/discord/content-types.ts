// Discord types an uploaded file by its name alone, as Python's mimetypes (with a Debian mime.types) guesses:
// the uploader's declared type is ignored, ".tar.gz" is application/x-tar, and a bare ".gz" or an extension
// the table lacks (".go", ".yaml", ".kt", …) gets no content_type at all. Some guesses are odd (".ts" is Qt
// Linguist, ".rs" an XML format); they are what bots receive.
const EXTENSION_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  heic: 'image/heic',
  heif: 'image/heif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  mp3: 'audio/mpeg',
  wav: 'audio/x-wav',
  flac: 'audio/flac',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  txt: 'text/plain',
  text: 'text/plain',
  srt: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/vnd.trolltech.linguist',
  py: 'text/x-python',
  pl: 'text/x-perl',
  c: 'text/x-csrc',
  h: 'text/x-chdr',
  cc: 'text/x-c++src',
  cpp: 'text/x-c++src',
  hpp: 'text/x-c++hdr',
  java: 'text/x-java',
  sh: 'text/x-sh',
  tex: 'text/x-tex',
  diff: 'text/x-diff',
  patch: 'text/x-diff',
  vtt: 'text/vtt',
  ics: 'text/calendar',
  json: 'application/json',
  xml: 'application/xml',
  sql: 'application/sql',
  rb: 'application/x-ruby',
  rs: 'application/rls-services+xml',
  pdf: 'application/pdf',
  rtf: 'application/rtf',
  zip: 'application/zip',
  '7z': 'application/x-7z-compressed',
  rar: 'application/vnd.rar',
  tar: 'application/x-tar',
  tgz: 'application/x-tar',
  jar: 'application/java-archive',
  exe: 'application/x-msdos-program',
  bat: 'application/x-msdos-program',
  dll: 'application/x-msdos-program',
  msi: 'application/x-msi',
  iso: 'application/x-iso9660-image',
  dmg: 'application/x-apple-diskimage',
  wasm: 'application/wasm',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  epub: 'application/epub+zip',
  ttf: 'font/ttf',
  otf: 'font/otf',
  woff: 'font/woff',
  woff2: 'font/woff2',
};

/** Compression suffixes mimetypes takes for an encoding, typing the name without them. */
const ENCODING_SUFFIXES = new Set(['gz', 'bz2', 'xz', 'br']);

/** Text comes with its charset, as in `text/plain; charset=utf-8`. */
function withCharset(type: string): string {
  return type.startsWith('text/') || type === 'application/json' ? `${type}; charset=utf-8` : type;
}

/** The content_type Discord reports for an attachment of this name, or null when it reports none. */
export function contentTypeFor(filename: string): string | null {
  const parts = filename.toLowerCase().split('.').slice(1);
  if (ENCODING_SUFFIXES.has(parts.at(-1) ?? '')) parts.pop();
  const type = EXTENSION_TYPES[parts.at(-1) ?? ''];
  return type === undefined ? null : withCharset(type);
}
