// The layer rules of ARCHITECTURE.md ("Layers"), checked inside `npm test`.
const layer = (name) => `^src/${name}/`;
const forbid = (from, to, why) => ({
  name: `${from.replace(/[^a-z]/g, '')}-not-${to.replace(/[^a-z]/g, '')}`,
  comment: why,
  severity: 'error',
  from: { path: layer(from) },
  to: { path: to },
});

module.exports = {
  forbidden: [
    forbid('lib', '^src/(?!lib/)', 'lib/ is domain-free: node builtins only'),
    forbid('config', '^src/(?!config/|lib/)', 'config/ may import lib/ only'),
    forbid('core', '^src/(?!core/|lib/)', 'core/ is pure: lib/ only'),
    forbid('core', '^(node:)?(fs|net|http|https|child_process|dgram|worker_threads)$', 'core/ has no I/O'),
    forbid(
      'sigv4',
      '^src/(storage|services|http|workers|clients|observability|cli)/',
      'sigv4/ is below storage and services',
    ),
    forbid('storage', '^src/(services|http|workers|clients|cli)/', 'storage/ is below services'),
    forbid('services', '^src/(http|workers|cli)/', 'services/ do not know about transports or workers'),
    forbid('http/s3', '^src/(storage|workers|http/admin)/', 'the S3 plane talks to services only'),
    forbid('http/admin', '^src/(storage|workers|http/s3)/', 'the admin API talks to services only'),
    forbid('workers', '^src/(http|storage)/', 'workers call services'),
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
