// node build.mjs OUT bundles the digest plugin into OUT: one executable
// file holding plugin.cjs, its packages and the .proto texts of
// pluginapi/proto (the proto folder for every language), which is
// what a plugin dir needs (the host runs a content-addressed copy of the
// file, away from any node_modules). Run `npm ci` first.
import { build } from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const out = process.argv[2];
if (!out) {
  console.error('usage: node build.mjs OUT');
  process.exit(2);
}
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const read = (p) => readFileSync(here(p), 'utf8');

await build({
  entryPoints: [here('plugin.cjs')],
  outfile: out,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // plugin.cjs's #! line is kept at the top.
  define: {
    HARNESS_PROTOS: JSON.stringify({
      'harness/plugin/v1/plugin.proto': read('../../../pluginapi/proto/harness/plugin/v1/plugin.proto'),
      'plugin/goplugin.proto': read('../../../pluginapi/proto/plugin/goplugin.proto'),
      'grpc/health/v1/health.proto': read('../../../pluginapi/proto/grpc/health/v1/health.proto'),
    }),
  },
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(out, 0o755);
