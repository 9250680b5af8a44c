// The per-request metric families (store_http_requests_total, store_http_request_duration_seconds and
// store_s3_operations_total): counted in plain numbers per label set as each request ends, and rendered as text
// (exposition format 0.0.4) at scrape time. prom-client's counter and histogram cost every request about 10 µs of
// event-loop CPU (label validation, label hashing, dictionary lookups); these cost a Map lookup (docs/performance.md,
// "the per-request CPU of every signed request"). The label sets are bounded (metric-labels.ts), so the Maps are too.

import type { RequestLabels } from './metric-labels.js';

/** Seconds. Beyond prom-client's default 10 s top: uploads and downloads of large objects take minutes. */
export const DURATION_BUCKETS: readonly number[] = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];

const REQUESTS = 'store_http_requests_total';
const DURATIONS = 'store_http_request_duration_seconds';
const OPERATIONS = 'store_s3_operations_total';

/** One label set's counts: requests, the sum of their durations, and how many fell in each bucket (not cumulative). */
interface Series {
  /** `surface="s3",method="GET",...`, rendered once. */
  labelText: string;
  count: number;
  sum: number;
  /** One slot per bucket bound, then one for observations above the last bound. */
  inBucket: Float64Array;
}

export class RequestMetrics {
  private readonly series = new Map<string, Series>();
  private readonly operations = new Map<string, number>();

  /** Records one finished request in both HTTP families, and in store_s3_operations_total for the S3 surface. */
  observe(labels: RequestLabels, seconds: number): void {
    const key = `${labels.surface}\n${labels.method}\n${labels.route_class}\n${labels.status_class}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = {
        labelText: labelText(labels),
        count: 0,
        sum: 0,
        inBucket: new Float64Array(DURATION_BUCKETS.length + 1),
      };
      this.series.set(key, series);
    }
    series.count += 1;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++;
    series.inBucket[bucket] = (series.inBucket[bucket] as number) + 1;
    if (labels.surface === 's3')
      this.operations.set(labels.route_class, (this.operations.get(labels.route_class) ?? 0) + 1);
  }

  /** The three families as exposition text, each with its HELP and TYPE lines, families separated by a blank line. */
  exposition(): string {
    const requests = [
      `# HELP ${REQUESTS} HTTP requests answered, by surface, method, route class and status class.`,
      `# TYPE ${REQUESTS} counter`,
    ];
    const durations = [
      `# HELP ${DURATIONS} HTTP request duration from arrival to the end of the response.`,
      `# TYPE ${DURATIONS} histogram`,
    ];
    for (const s of this.series.values()) {
      requests.push(`${REQUESTS}{${s.labelText}} ${s.count}`);
      let cumulative = 0;
      DURATION_BUCKETS.forEach((bound, i) => {
        cumulative += s.inBucket[i] as number;
        durations.push(`${DURATIONS}_bucket{le="${bound}",${s.labelText}} ${cumulative}`);
      });
      durations.push(`${DURATIONS}_bucket{le="+Inf",${s.labelText}} ${s.count}`);
      durations.push(`${DURATIONS}_sum{${s.labelText}} ${s.sum}`);
      durations.push(`${DURATIONS}_count{${s.labelText}} ${s.count}`);
    }
    const operations = [
      `# HELP ${OPERATIONS} S3 requests by operation (the S3 API operation name).`,
      `# TYPE ${OPERATIONS} counter`,
    ];
    for (const [operation, count] of this.operations)
      operations.push(`${OPERATIONS}{operation="${escapeLabel(operation)}"} ${count}`);
    return [requests, durations, operations].map((lines) => lines.join('\n')).join('\n\n');
  }
}

function labelText(labels: RequestLabels): string {
  return (
    `surface="${escapeLabel(labels.surface)}",method="${escapeLabel(labels.method)}",` +
    `route_class="${escapeLabel(labels.route_class)}",status_class="${escapeLabel(labels.status_class)}"`
  );
}

/** A label value as the text format needs it: backslash, double quote and line feed escaped. */
function escapeLabel(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}
