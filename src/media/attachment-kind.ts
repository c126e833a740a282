/** What Herald does with an attached file, decided from its declared type and name before downloading it. */
export type AttachmentKind = 'image' | 'audio' | 'document' | 'unsupported';

/** A file of no recognizable type is downloaded and sniffed as text only up to this size. */
export const UNKNOWN_FILE_SNIFF_BYTES = 1024 * 1024;

const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'heic', 'heif', 'avif', 'tif', 'tiff', 'svg']);
const AUDIO_EXTENSIONS = new Set(['ogg', 'oga', 'opus', 'mp3', 'wav', 'flac', 'm4a', 'aac', 'webm', 'weba']);

const TEXT_EXTENSIONS = new Set([
  'txt',
  'text',
  'md',
  'markdown',
  'rst',
  'adoc',
  'org',
  'tex',
  'log',
  'csv',
  'tsv',
  'json',
  'jsonl',
  'ndjson',
  'xml',
  'yaml',
  'yml',
  'toml',
  'ini',
  'cfg',
  'conf',
  'properties',
  'env',
  'srt',
  'vtt',
  'diff',
  'patch',
  'html',
  'htm',
  'css',
  'scss',
  'sass',
  'less',
  'js',
  'mjs',
  'cjs',
  'jsx',
  'ts',
  'mts',
  'cts',
  'tsx',
  'vue',
  'svelte',
  'py',
  'pyi',
  'ipynb',
  'rb',
  'php',
  'java',
  'kt',
  'kts',
  'scala',
  'groovy',
  'gradle',
  'c',
  'h',
  'cc',
  'cpp',
  'cxx',
  'hpp',
  'hh',
  'cs',
  'fs',
  'go',
  'rs',
  'swift',
  'm',
  'mm',
  'dart',
  'lua',
  'r',
  'jl',
  'pl',
  'pm',
  'sh',
  'bash',
  'zsh',
  'fish',
  'ps1',
  'bat',
  'cmd',
  'sql',
  'graphql',
  'gql',
  'proto',
  'ex',
  'exs',
  'erl',
  'hrl',
  'hs',
  'clj',
  'cljs',
  'elm',
  'ml',
  'mli',
  'nim',
  'zig',
  'v',
  'sv',
  'vhd',
  'asm',
  's',
  'tf',
  'hcl',
  'nix',
  'cmake',
  'mk',
  'dockerfile',
  'gitignore',
  'editorconfig',
  'lock',
]);
const TEXT_FILE_NAMES = new Set(['dockerfile', 'makefile', 'gemfile', 'rakefile', 'procfile', 'license', 'readme', 'changelog']);
const TEXT_MIME_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/x-javascript',
  'application/typescript',
  'application/x-sh',
  'application/x-shellscript',
  'application/sql',
  'application/x-python',
  'application/x-python-code',
  'application/x-tex',
  'application/x-subrip',
  'application/graphql',
  'application/x-httpd-php',
  'application/xhtml+xml',
]);
/** Known not to be text: never downloaded to be sniffed. */
const BINARY_EXTENSIONS = new Set([
  'zip',
  'rar',
  '7z',
  'gz',
  'tgz',
  'bz2',
  'xz',
  'zst',
  'tar',
  'jar',
  'apk',
  'ipa',
  'exe',
  'msi',
  'dll',
  'so',
  'dylib',
  'bin',
  'iso',
  'dmg',
  'img',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'odt',
  'ods',
  'odp',
  'rtf',
  'epub',
  'mp4',
  'm4v',
  'mov',
  'mkv',
  'avi',
  'wmv',
  'flv',
  'psd',
  'ai',
  'sketch',
  'fig',
  'blend',
  'ttf',
  'otf',
  'woff',
  'woff2',
  'sqlite',
  'db',
  'pyc',
  'class',
  'wasm',
  'o',
  'a',
]);
const UNKNOWN_MIME_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

function mimeType(mime?: string | null): string {
  return mime?.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** A document its declared type or name calls a PDF, to size its download; its bytes decide how it is read. */
export function isDeclaredPdf(name: string, mime?: string | null): boolean {
  return mimeType(mime) === 'application/pdf' || extensionOf(name) === 'pdf';
}

function extensionOf(name: string): string {
  return /\.([a-z0-9+_-]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
}

/**
 * Images and recordings by declared type, else by extension (platforms guess types from names too); text,
 * code and PDFs as documents; a file of unknown type is a document when small enough to sniff; anything
 * else (video, archives, office files, programs) is unsupported and not downloaded.
 */
export function attachmentKind(name: string, mime?: string | null, size?: number): AttachmentKind {
  const type = mimeType(mime);
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('text/') || TEXT_MIME_TYPES.has(type) || isDeclaredPdf(name, mime)) return 'document';
  const extension = extensionOf(name);
  if (IMAGE_EXTENSIONS.has(extension)) return 'image';
  if (AUDIO_EXTENSIONS.has(extension)) return 'audio';
  if (TEXT_EXTENSIONS.has(extension) || TEXT_FILE_NAMES.has(name.toLowerCase())) return 'document';
  if (BINARY_EXTENSIONS.has(extension)) return 'unsupported';
  if (UNKNOWN_MIME_TYPES.has(type) && (size === undefined || size <= UNKNOWN_FILE_SNIFF_BYTES)) return 'document';
  return 'unsupported';
}
