import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The provider boundary (docs/providers.md): the simulator and what only a PIX network produces
 * (end-to-end ids, the simulated bank's ISPB) stay under src/provider/; the rest of the gateway
 * reaches a provider through src/services.ts only.
 */
const REPO = fileURLToPath(new URL('../..', import.meta.url));

type SourceFile = { path: string; text: string; imports: Import[] };
/** `names`: the bindings a named import or re-export brings in (empty for the other forms). */
type Import = { specifier: string; resolved: string; names: string[]; namespace: string | null };

function listTypeScript(folder: string): string[] {
  return readdirSync(join(REPO, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(folder, entry.name);
    if (entry.isDirectory()) return listTypeScript(path);
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A relative specifier as a repository path with its .ts extension; a package name as is. */
function resolveSpecifier(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const absolute = join(REPO, dirname(from), specifier);
  return relative(REPO, absolute).split(sep).join('/').replace(/\.js$/, '.ts');
}

const STATIC_IMPORT = /\b(?:import|export)\s+(?:type\s+)?((?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)|[\w$]+)\s+from\s+['"]([^'"]+)['"]/g;
const BARE_IMPORT = /\bimport\s+['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(path: string, text: string): Import[] {
  const found: Import[] = [];
  for (const match of text.matchAll(STATIC_IMPORT)) {
    const clause = match[1] ?? '';
    const specifier = match[2] ?? '';
    const braces = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
    const names = braces
      .split(',')
      .map(
        (part) =>
          part
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]
            ?.trim() ?? '',
      )
      .filter(Boolean);
    const namespace = /\*\s+as\s+([\w$]+)/.exec(clause)?.[1] ?? null;
    found.push({ specifier, resolved: resolveSpecifier(path, specifier), names, namespace });
  }
  for (const pattern of [BARE_IMPORT, DYNAMIC_IMPORT]) {
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1] ?? '';
      found.push({ specifier, resolved: resolveSpecifier(path, specifier), names: [], namespace: null });
    }
  }
  return found;
}

const sources: SourceFile[] = listTypeScript('src').map((path) => {
  const text = readFileSync(join(REPO, path), 'utf8');
  return { path, text, imports: importsOf(path, text) };
});

const inProvider = (path: string) => path.startsWith('src/provider/');
const offenders = (found: string[]) => `offending files: ${found.length ? found.join(', ') : '(none)'}`;

const importsSimulated = (file: SourceFile) =>
  file.imports.some((entry) => entry.specifier.includes('provider/simulated') || entry.resolved.startsWith('src/provider/simulated/'));
const importsApiPix = (file: SourceFile) =>
  file.imports.some((entry) => entry.specifier.includes('provider/apipix') || entry.resolved.startsWith('src/provider/apipix/'));
/** Where the name of a real provider may appear outside src/provider/: its configuration. */
const mentionsApiPix = (file: SourceFile) => /apipix|API Pix|\/cob\b|devolucao|idEnvio/i.test(file.text);
const importsProviderIndex = (file: SourceFile) =>
  file.imports.some((entry) => entry.resolved === 'src/provider/index.ts' || entry.specifier.endsWith('provider/index.js'));
const importsEndToEndIdGenerator = (file: SourceFile) =>
  file.imports.some(
    (entry) =>
      entry.names.includes('generateEndToEndId') ||
      (entry.namespace !== null && entry.resolved === 'src/pix/endToEndId.ts' && file.text.includes(`${entry.namespace}.generateEndToEndId`)),
  );
const mentionsSimulatedIspb = (file: SourceFile) => file.text.includes('SIMULATED_ISPB') || /['"`]99999999['"`]/.test(file.text);

describe('the provider boundary in src/', () => {
  it('the scan sees the source tree and its imports', () => {
    const paths = sources.map((file) => file.path);
    expect(paths).toContain('src/services.ts');
    expect(paths).toContain('src/provider/simulated/simulator.ts');
    // The checks below would pass on nothing: they must at least see what is allowed.
    expect(sources.filter(importsProviderIndex).map((file) => file.path)).toContain('src/services.ts');
    expect(sources.filter(importsEndToEndIdGenerator).map((file) => file.path)).toContain('src/provider/simulated/simulator.ts');
    expect(sources.filter(importsSimulated).map((file) => file.path)).toContain('src/provider/index.ts');
    expect(sources.filter(mentionsSimulatedIspb).map((file) => file.path)).toContain('src/provider/simulated/simulator.ts');
    expect(sources.filter(importsApiPix).map((file) => file.path)).toContain('src/provider/index.ts');
    expect(sources.filter(mentionsApiPix).map((file) => file.path)).toContain('src/provider/apipix/provider.ts');
  });

  it('no file outside src/provider/ imports the API Pix adapter, and only the configuration names it', () => {
    const importing = sources.filter((file) => !inProvider(file.path) && importsApiPix(file)).map((file) => file.path);
    expect(importing, offenders(importing)).toEqual([]);
    const naming = sources.filter((file) => !inProvider(file.path) && file.path !== 'src/config.ts' && mentionsApiPix(file)).map((file) => file.path);
    expect(naming, offenders(naming)).toEqual([]);
  });

  it('no file outside src/provider/ imports the simulator', () => {
    const found = sources.filter((file) => !inProvider(file.path) && importsSimulated(file)).map((file) => file.path);
    expect(found, offenders(found)).toEqual([]);
  });

  it('generateEndToEndId is imported only under src/provider/', () => {
    const found = sources.filter((file) => !inProvider(file.path) && importsEndToEndIdGenerator(file)).map((file) => file.path);
    expect(found, offenders(found)).toEqual([]);
  });

  it("SIMULATED_ISPB and the ISPB '99999999' appear only under src/provider/", () => {
    const found = sources.filter((file) => !inProvider(file.path) && mentionsSimulatedIspb(file)).map((file) => file.path);
    expect(found, offenders(found)).toEqual([]);
  });

  it('only src/services.ts imports provider/index.js from outside src/provider/', () => {
    const found = sources.filter((file) => !inProvider(file.path) && file.path !== 'src/services.ts' && importsProviderIndex(file)).map((file) => file.path);
    expect(found, offenders(found)).toEqual([]);
  });
});

describe('the import scan itself', () => {
  it('reads named, type, namespace, re-export, bare and dynamic imports, across lines', () => {
    const text = [
      "import { a, type b as c } from '../provider/simulated/simulator.js';",
      'import {\n  generateEndToEndId,\n  other,\n} from "../pix/endToEndId.js";',
      "import * as ids from '../pix/endToEndId.js';",
      "export { x } from './provider/index.js';",
      "import '../provider/simulated/repository.js';",
      "const later = await import('../provider/index.js');",
    ].join('\n');
    expect(importsOf('src/sandbox/example.ts', text)).toEqual([
      { specifier: '../provider/simulated/simulator.js', resolved: 'src/provider/simulated/simulator.ts', names: ['a', 'b'], namespace: null },
      { specifier: '../pix/endToEndId.js', resolved: 'src/pix/endToEndId.ts', names: ['generateEndToEndId', 'other'], namespace: null },
      { specifier: '../pix/endToEndId.js', resolved: 'src/pix/endToEndId.ts', names: [], namespace: 'ids' },
      { specifier: './provider/index.js', resolved: 'src/sandbox/provider/index.ts', names: ['x'], namespace: null },
      { specifier: '../provider/simulated/repository.js', resolved: 'src/provider/simulated/repository.ts', names: [], namespace: null },
      { specifier: '../provider/index.js', resolved: 'src/provider/index.ts', names: [], namespace: null },
    ]);
  });
});
