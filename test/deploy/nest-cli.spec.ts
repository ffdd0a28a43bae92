import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../support/processes.js';

/**
 * `npx nest build` and `npx nest start <app>` (nest-cli.json) must build and start what the
 * rest of the project builds and starts: the same tsc output in dist/, the same entry files
 * that scripts/picket.mjs, the Dockerfiles and the systemd units run. Nothing is built here:
 * the paths are checked with the compiler's own answer for where each entry is emitted.
 */
interface Project {
  type: 'application' | 'library';
  root: string;
  sourceRoot: string;
  entryFile: string;
  compilerOptions?: Record<string, unknown>;
}
interface NestCli {
  monorepo: boolean;
  root: string;
  sourceRoot: string;
  compilerOptions: { builder: string; tsConfigPath: string };
  projects: Record<string, Project>;
}

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const nest = JSON.parse(read('nest-cli.json')) as NestCli;
const pkg = JSON.parse(read('package.json')) as {
  imports: Record<string, Record<string, string>>;
  devDependencies: Record<string, string>;
};
const projects = Object.entries(nest.projects);
const apps = projects.filter(([, p]) => p.type === 'application');
const libraries = projects.filter(([, p]) => p.type === 'library');

/** The tsconfig `nest build <name>` compiles with: the project's own, else the root's. */
const tsConfigOf = (project: Project) =>
  (project.compilerOptions?.tsConfigPath as string) ?? nest.compilerOptions.tsConfigPath;

function parseTsConfig(path: string): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(REPO_ROOT, path), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error(`${path} could not be read`);
  expect(parsed.errors).toEqual([]);
  return parsed;
}

/** Where tsc, with this tsconfig, writes the JavaScript of `source` (relative to the repository). */
function emittedJs(tsconfig: ts.ParsedCommandLine, source: string): string {
  const outputs = ts.getOutputFileNames(tsconfig, join(REPO_ROOT, source), false);
  const js = outputs.find((file) => file.endsWith('.js'));
  if (!js) throw new Error(`${source} emits no JavaScript (${outputs.join(', ')})`);
  return relative(REPO_ROOT, js);
}

const full = parseTsConfig(nest.compilerOptions.tsConfigPath);

describe('nest-cli.json', () => {
  it('is a monorepo of the two apps and four libraries, built by tsc with tsconfig.build.json', () => {
    expect(nest.monorepo).toBe(true);
    expect(apps.map(([name]) => name).sort()).toEqual(['agent', 'coordinator']);
    expect(libraries.map(([name]) => name).sort()).toEqual(['contracts', 'probes', 'runtime', 'validation']);
    expect(nest.compilerOptions).toMatchObject({ builder: 'tsc', tsConfigPath: 'tsconfig.build.json' });
    for (const [name, project] of projects) {
      const override = project.compilerOptions ?? {};
      expect(`${name}: ${JSON.stringify([override.builder, override.webpack])}`).toBe(`${name}: [null,null]`);
    }
    expect(pkg.devDependencies['@nestjs/cli']).toMatch(/^\^12\./);
  });

  it.each(projects)('%s: root, sourceRoot and entry file exist', (_name, project) => {
    expect(existsSync(join(REPO_ROOT, project.root))).toBe(true);
    expect(project.sourceRoot.startsWith(`${project.root}/`)).toBe(true);
    expect(existsSync(join(REPO_ROOT, project.sourceRoot, `${project.entryFile}.ts`))).toBe(true);
    expect(existsSync(join(REPO_ROOT, tsConfigOf(project)))).toBe(true);
  });

  it.each(apps)(
    '%s: `nest start` runs the file tsc emits, the one scripts/picket.mjs and the deploy files run',
    (name, project) => {
      const source = join(project.sourceRoot, `${project.entryFile}.ts`);
      const own = parseTsConfig(tsConfigOf(project));
      expect(own.fileNames).toContain(join(REPO_ROOT, source));
      // The CLI starts <outDir>/<sourceRoot>/<entryFile>.js (actions/start.action.js).
      const started = relative(REPO_ROOT, join(own.options.outDir!, project.sourceRoot, `${project.entryFile}.js`));
      expect(started).toBe(`dist/apps/${name}/src/main.js`);
      expect(emittedJs(own, source)).toBe(started);
      expect(emittedJs(full, source)).toBe(started);
      expect(read('scripts/picket.mjs')).toContain(`runBuilt('${started}')`);
      // Node flags may come first (the agent image's heap limits: test/support/deployed-node-options.ts).
      expect(read(`deploy/docker/${name}.Dockerfile`)).toMatch(
        new RegExp(`^CMD \\["node", (?:"--[^"]+", )*"${started}"\\]$`, 'm'),
      );
      expect(read(`deploy/systemd/picket-${name}.service`)).toContain(`ExecStart=/usr/bin/node /opt/picket/${started}`);
    },
  );

  it.each(apps)(
    '%s: building the app alone writes what the full build writes, and keeps its own build info',
    (_name, project) => {
      const own = parseTsConfig(tsConfigOf(project));
      expect(own.options.rootDir).toBe(full.options.rootDir);
      expect(own.options.outDir).toBe(full.options.outDir);
      expect(own.options.tsBuildInfoFile).not.toBe(full.options.tsBuildInfoFile);
      expect(own.options.tsBuildInfoFile!.startsWith(`${full.options.outDir!}/`)).toBe(true);
    },
  );

  it.each(libraries)(
    '%s: its package.json import resolves to its entry, in the sources and in the tsc output',
    (name, project) => {
      const source = join(project.sourceRoot, `${project.entryFile}.ts`);
      expect(pkg.imports[`#${name}`]).toEqual({
        'picket-source': `./${source}`,
        default: `./${emittedJs(full, source)}`,
      });
    },
  );

  it('with no project named, builds everything and starts the coordinator (as `npm start` does)', () => {
    expect(nest.compilerOptions.tsConfigPath).toBe('tsconfig.build.json');
    expect([nest.root, nest.sourceRoot]).toEqual([
      nest.projects.coordinator!.root,
      nest.projects.coordinator!.sourceRoot,
    ]);
  });
});
