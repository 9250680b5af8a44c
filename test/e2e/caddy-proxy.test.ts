// Store behind Debian's Caddy running the documented site (docs/operations.md): the shared reverse-proxy suite.

import { proxySuite } from './proxy-suite.js';

proxySuite('caddy');
