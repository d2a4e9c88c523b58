// Loaded into every test process (package.json, tap's node-arg): runs the TypeScript of src/ and
// test/ as it is, with no build step for the tests.
//
// Where Node has synchronous module hooks (module.registerHooks, Node 22.15 and later), they run on
// the loading thread: `import './x.js'` from a .ts file finds x.ts, and a .ts file is turned into
// JavaScript by esbuild, once per content (a cache under node_modules/.cache), with its source map
// inline so failures name the .ts line. On older Node, tsx does the same through module.register(),
// whose hooks run on a second thread: every module the process loads (tap's own several hundred
// included) then costs a round trip between threads, about 0.6 s of CPU per test process.
import module from 'node:module';

if (typeof module.registerHooks === 'function') {
  const { createHash } = await import('node:crypto');
  const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  const path = await import('node:path');

  const root = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));
  const cacheDir = path.join(root, 'node_modules', '.cache', 'aap-chaos-test-ts');
  /** Loaded on the first .ts file the cache does not hold. */
  let esbuild;

  /** The JavaScript of one .ts file: from the cache when its content was seen before. */
  const javascriptOf = (file, source) => {
    const key = createHash('sha256').update(file).update('\0').update(source).digest('hex').slice(0, 40);
    const cached = path.join(cacheDir, `${key}.js`);
    try {
      return readFileSync(cached, 'utf8');
    } catch {
      // not cached yet
    }
    esbuild ??= module.createRequire(import.meta.url)('esbuild');
    const { code } = esbuild.transformSync(source, {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: file,
      // As tsc compiles src/ (tsconfig.json: ES2022, whose class fields are defined as JavaScript's are).
      tsconfigRaw: { compilerOptions: { target: 'ES2022', useDefineForClassFields: true } },
    });
    mkdirSync(cacheDir, { recursive: true });
    // Written whole and renamed, so a test process beside this one never reads half a file.
    const temporary = `${cached}.${process.pid}.tmp`;
    writeFileSync(temporary, code);
    renameSync(temporary, cached);
    return code;
  };

  /** A file: URL's path part and its query and hash (tap's mockImport adds a query). */
  const split = (href) => {
    const at = href.search(/[?#]/);
    return at === -1 ? [href, ''] : [href.slice(0, at), href.slice(at)];
  };

  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      // TypeScript's convention: an import names the .js its .ts file compiles to. Only for
      // relative or file: specifiers outside node_modules, where the .js does not exist.
      const relative = specifier.startsWith('./') || specifier.startsWith('../');
      if ((relative && context.parentURL?.startsWith('file:')) || specifier.startsWith('file:') || specifier.startsWith('/')) {
        const [href, rest] = split(new URL(specifier, context.parentURL ?? `file://${root}/`).href);
        if (href.endsWith('.js') && !href.includes('/node_modules/')) {
          const ts = `${href.slice(0, -3)}.ts`;
          if (!existsSync(fileURLToPath(href)) && existsSync(fileURLToPath(ts))) return nextResolve(ts + rest, context);
        }
      }
      return nextResolve(specifier, context);
    },
    load(url, context, nextLoad) {
      const [href] = split(url);
      if (!href.startsWith('file:') || !href.endsWith('.ts') || href.endsWith('.d.ts')) return nextLoad(url, context);
      const file = fileURLToPath(href);
      return { format: 'module', source: javascriptOf(file, readFileSync(file, 'utf8')), shortCircuit: true };
    },
  });
} else {
  await import('tsx');
}
