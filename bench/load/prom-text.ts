/** One scrape of a Prometheus text exposition: samples by metric name, each with its labels. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export type Scrape = Map<string, Sample[]>;

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export function parsePromText(text: string): Scrape {
  const scrape: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name!] = value!;
    const samples = scrape.get(match[1]!) ?? [];
    samples.push({ labels, value: Number(match[3]) });
    scrape.set(match[1]!, samples);
  }
  return scrape;
}

/** The sum of every sample of `name` (0 when absent). */
export function total(scrape: Scrape, name: string): number {
  return (scrape.get(name) ?? []).reduce((sum, s) => sum + s.value, 0);
}
