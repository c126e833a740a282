import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

// Replays the Dockerfile's build without a Docker engine: the files its COPY lines name, its npm install step,
// then an import of the production code under Node 22 with only production dependencies present.

const root = fileURLToPath(new URL('../../', import.meta.url));
const importModules = fileURLToPath(new URL('./fixtures/import-modules.ts', import.meta.url));

interface Instruction {
  keyword: string;
  flags: Record<string, string>;
  args: string;
}

interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  const stages: Stage[] = [];
  for (const line of lines) {
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`cannot read Dockerfile line: ${line}`);
    const keyword = match[1]!.toUpperCase();
    let args = match[2]!;
    const flags: Record<string, string> = {};
    for (let flag = /^--([\w-]+)=(\S+)\s+/.exec(args); flag; flag = /^--([\w-]+)=(\S+)\s+/.exec(args)) {
      flags[flag[1]!] = flag[2]!;
      args = args.slice(flag[0].length);
    }
    if (keyword === 'FROM') {
      const [image, as, name] = args.split(/\s+/);
      stages.push({ image: image!, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      if (stages.length === 0) throw new Error(`${keyword} before FROM`);
      stages.at(-1)!.instructions.push({ keyword, flags, args });
    }
  }
  return stages;
}

function words(args: string): string[] {
  return args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
}

function workdirOf(stage: Stage): string {
  const workdirs = stage.instructions.filter((i) => i.keyword === 'WORKDIR').map((i) => i.args);
  expect(workdirs, `stage ${stage.name ?? stage.image} sets one WORKDIR`).toHaveLength(1);
  return workdirs[0]!;
}

/** .dockerignore patterns as Docker applies them: to the path from the context root, `*` within a segment. */
function dockerIgnored(): (path: string) => boolean {
  const file = join(root, '.dockerignore');
  if (!existsSync(file)) return () => false;
  const patterns = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('!'))
    .map((pattern) => {
      const source = posix
        .normalize(pattern.replace(/^\/+/, ''))
        .split('**')
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('.*');
      return new RegExp(`^${source}(/.*)?$`);
    });
  return (path) => patterns.some((pattern) => pattern.test(path));
}

const dockerfile = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const finalStage = dockerfile.at(-1)!;
const app = mkdtempSync(join(tmpdir(), 'herald-image-'));
afterAll(() => rmSync(app, { recursive: true, force: true }));

describe('Dockerfile', () => {
  it('builds on node:22-slim in stages, installs ffmpeg, runs as a non-root user and checks /healthz', () => {
    expect(dockerfile.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile) expect(stage.image).toBe('node:22-slim');
    const runs = finalStage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((run) => /apt-get install\b.*\bffmpeg\b/.test(run))).toBe(true);
    const user = finalStage.instructions.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user!.split(':')[0]);
    const healthcheck = finalStage.instructions.find((i) => i.keyword === 'HEALTHCHECK');
    expect(healthcheck?.args).toMatch(/^CMD .*\/healthz/);
    expect(finalStage.instructions.some((i) => i.keyword === 'CMD')).toBe(true);
  });

  it('installs production dependencies only, in a stage whose node_modules the final image copies', () => {
    const installs = dockerfile.flatMap((stage) =>
      stage.instructions.filter((i) => i.keyword === 'RUN' && /\bnpm\s+(ci|install|i)\b/.test(i.args)).map((i) => ({ stage, run: i.args })),
    );
    expect(installs).toHaveLength(1);
    const [{ stage, run }] = installs as [{ stage: Stage; run: string }];
    expect(run).toMatch(/^npm ci\b.*--omit=dev\b/);
    expect(stage).not.toBe(finalStage);
    const copied = finalStage.instructions.find((i) => i.keyword === 'COPY' && i.flags.from === stage.name);
    expect(copied && words(copied.args)[0]).toBe(posix.join(workdirOf(stage), 'node_modules'));
  });

  it('replays its COPY and npm ci steps, and the production code imports under Node 22 with production deps only', () => {
    expect(process.versions.node.split('.')[0]).toBe('22');
    const ignored = dockerIgnored();

    const contextCopies = dockerfile.flatMap((stage) =>
      stage.instructions.filter((i) => i.keyword === 'COPY' && !i.flags.from).map((i) => ({ stage, parts: words(i.args) })),
    );
    for (const { stage, parts } of contextCopies) {
      const workdir = workdirOf(stage);
      const sources = parts.slice(0, -1);
      const destination = posix.resolve(workdir, parts.at(-1)!);
      const intoDirectory = parts.at(-1)!.endsWith('/') || sources.length > 1;
      for (const source of sources) {
        const from = join(root, source);
        expect(existsSync(from), `COPY source ${source} exists`).toBe(true);
        expect(ignored(posix.normalize(source)), `COPY source ${source} is not .dockerignored`).toBe(false);
        const target = statSync(from).isFile() && intoDirectory ? posix.join(destination, basename(source)) : destination;
        cpSync(from, join(app, posix.relative(workdir, target)), {
          recursive: true,
          filter: (path) => path === from || !ignored(relative(root, path).split('\\').join('/')),
        });
      }
    }

    // A package only present because a dependency pulls it in (ws via discord.js) would import fine here
    // and vanish from the image when that dependency changes.
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    expect(undeclaredImports(app, Object.keys(manifest.dependencies ?? {})), 'imports of undeclared packages').toEqual([]);

    const npmStage = dockerfile.find((stage) => stage.instructions.some((i) => i.keyword === 'RUN' && i.args.startsWith('npm ')))!;
    const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, npm_config_update_notifier: 'false' };
    for (const run of npmStage.instructions.filter((i) => i.keyword === 'RUN')) {
      const [npm, ...args] = run.args.split(/\s+/);
      expect(npm, `the only RUN steps of the dependency stage are npm commands: ${run.args}`).toBe('npm');
      // From the local npm cache: offline first, the registry only for what the cache lacks.
      let result = spawnSync('npm', [...args, '--offline'], { cwd: app, env, encoding: 'utf8' });
      if (result.status !== 0 && /ENOTCACHED/.test(result.stderr)) {
        result = spawnSync('npm', [...args, '--prefer-offline'], { cwd: app, env, encoding: 'utf8' });
      }
      expect(result.status, `${run.args} failed:\n${result.stderr}`).toBe(0);
    }

    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const devOnly = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && entry.dev === true);
    expect(devOnly.length).toBeGreaterThan(0);
    expect(
      devOnly.map(([path]) => path).filter((path) => existsSync(join(app, path))),
      'dev-only packages in the image',
    ).toEqual([]);

    const cmd = finalStage.instructions.filter((i) => i.keyword === 'CMD').at(-1)!;
    const entry = words(cmd.args).find((word) => word.endsWith('.ts'));
    const modules = entry && existsSync(join(app, entry)) ? [entryImportsStub(join(app, entry), app)] : sourceModules(join(app, 'src'));
    expect(modules.length).toBeGreaterThan(0);

    const imported = spawnSync(process.execPath, [importModules, ...modules], {
      cwd: app,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: app, ...imageEnv(finalStage) },
      timeout: 30_000,
    });
    expect(imported.status, imported.stderr).toBe(0);
    const report = JSON.parse(imported.stdout.trim().split('\n').at(-1)!) as { imported: number; failures: unknown[] };
    expect(report.failures).toEqual([]);
    expect(report.imported).toBe(modules.length);
  }, 300_000);
});

const STATIC_IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Specifiers a module loads at run time: type-only imports are erased by type stripping, so they are left out. */
function runtimeSpecifiers(source: string): string[] {
  const specifiers = new Set<string>();
  for (const match of source.matchAll(STATIC_IMPORT)) if (!match[1]) specifiers.add(match[2]!);
  for (const match of source.matchAll(DYNAMIC_IMPORT)) specifiers.add(match[1]!);
  return [...specifiers];
}

/** `file: specifier` for every bare import of a package that package.json does not list under dependencies. */
function undeclaredImports(dir: string, dependencies: string[]): string[] {
  const declared = new Set(dependencies);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.startsWith('node_modules'))
    .flatMap((path) =>
      runtimeSpecifiers(readFileSync(join(dir, path), 'utf8'))
        .filter((specifier) => !/^(\.|\/|node:)/.test(specifier) && !builtinModules.includes(specifier))
        .filter(
          (specifier) =>
            !declared.has(
              specifier
                .split('/')
                .slice(0, specifier.startsWith('@') ? 2 : 1)
                .join('/'),
            ),
        )
        .map((specifier) => `${path}: ${specifier}`),
    );
}

/** Every module under src, as the image's node would load them. */
function sourceModules(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))
    .map((path) => join(dir, path))
    .sort();
}

/**
 * The entry starts Herald when evaluated, so only what it imports is loaded: a stub beside it with the same
 * run-time imports, plus every module the code imports only once it is needed (a platform's adapter, a codec, the PDF reader).
 */
function entryImportsStub(entry: string, app: string): string {
  const specifiers = runtimeSpecifiers(readFileSync(entry, 'utf8'));
  expect(specifiers.length, `${entry} imports something`).toBeGreaterThan(0);
  const stub = join(dirname(entry), `${basename(entry, '.ts')}.imports-check.mjs`);
  writeFileSync(stub, [...specifiers, ...lazyImports(app)].map((specifier) => `import ${JSON.stringify(specifier)};\n`).join(''));
  return stub;
}

/** The targets of every `import('…')` in the app's code: packages by name, Herald's modules by file URL. */
function lazyImports(app: string): string[] {
  const targets = new Set<string>();
  for (const path of readdirSync(app, { recursive: true, encoding: 'utf8' })) {
    if (!path.endsWith('.ts') || path.startsWith('node_modules')) continue;
    for (const [, specifier] of readFileSync(join(app, path), 'utf8').matchAll(DYNAMIC_IMPORT)) {
      targets.add(specifier!.startsWith('.') ? pathToFileURL(join(app, dirname(path), specifier!)).href : specifier!);
    }
  }
  return [...targets];
}

/** The ENV lines of the final stage (KEY=VALUE pairs), so modules load under the image's environment. */
function imageEnv(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const instruction of stage.instructions.filter((i) => i.keyword === 'ENV')) {
    for (const pair of instruction.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[pair[1]!] = pair[2]!.replace(/^"|"$/g, '');
  }
  return env;
}

describe('docker-compose.yml', () => {
  const compose = parseYaml(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, Record<string, unknown>>;
    volumes: Record<string, unknown>;
  };

  it('builds Herald from this repository with .env and points its store at the Redis service', () => {
    const herald = compose.services.herald!;
    expect(herald.build).toBe('.');
    expect([herald.env_file].flat()).toContain('.env');
    expect((herald.environment as Record<string, string>).STORE_URL).toBe('redis://redis:6379');
    expect(herald.depends_on).toMatchObject({ redis: { condition: 'service_healthy' } });
    expect(compose.services.redis!.image).toMatch(/^redis:/);
    expect(compose.services.redis!.healthcheck).toMatchObject({ test: expect.arrayContaining(['redis-cli', 'ping']) });
  });

  it('keeps /data on a named volume, restarts, health-checks /healthz and outwaits the 10 s drain', () => {
    const herald = compose.services.herald!;
    const mounts = herald.volumes as string[];
    const data = mounts.map((m) => m.split(':')).find(([, target]) => target === '/data');
    expect(data).toBeDefined();
    expect(Object.keys(compose.volumes)).toContain(data![0]);
    expect(herald.restart).toMatch(/^(always|unless-stopped|on-failure)/);
    expect(JSON.stringify((herald.healthcheck as { test: unknown }).test)).toContain('/healthz');
    expect(Number.parseInt(String(herald.stop_grace_period), 10)).toBeGreaterThan(10);
  });
});
