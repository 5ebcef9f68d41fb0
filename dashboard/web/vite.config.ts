// The dashboard SPA's build: plain Vite (JSX by its built-in transform, no plugins), one entry,
// hashed assets under /assets, no inline script (the CSP forbids it), no source maps shipped.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: dirname(fileURLToPath(import.meta.url)),
  base: '/',
  publicDir: false,
  build: {
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1024,
    rollupOptions: {
      // React libraries mark modules "use client" (a server-components hint with no meaning here).
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
