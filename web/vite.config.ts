// The web app's build: Preact pages under web/src, bundled by Vite into dist/web,
// which the service serves at `/` (src/http/webApp.ts). `npm run build` runs it.
import { defineConfig, type Plugin } from 'vite';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes `.br` and `.gz` beside each text asset, so the service sends them pre-compressed. */
function precompress(): Plugin {
  return {
    name: 'boxoffice-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      const outDir = options.dir ?? '';
      for (const [file, chunk] of Object.entries(bundle)) {
        if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
        const body = Buffer.from(chunk.type === 'chunk' ? chunk.code : chunk.source);
        const target = path.join(outDir, file);
        writeFileSync(`${target}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${target}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: path.dirname(new URL(import.meta.url).pathname),
  base: '/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
  // `npm run dev:web`: Vite's dev server with hot reload, the API proxied to a running `npm start`.
  server: { proxy: { '/v1': `http://127.0.0.1:${process.env.PORT ?? 3000}` } },
  plugins: [precompress()],
});
