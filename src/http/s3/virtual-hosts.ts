// Virtual-hosted–style addressing: which bucket a request's Host names, when it is `<bucket>.<domain>` for a domain of
// STORE_DOMAIN. Only the Host header counts, never X-Forwarded-Host (a proxy must forward the original Host, SPEC
// "Reverse-proxy rules"). https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html

export class VirtualHosts {
  /** Longest first: under `example.com` and `s3.example.com`, `b.s3.example.com` is bucket `b` of the longer one. */
  private readonly domains: readonly string[];

  /** `domains`: STORE_DOMAIN's names, lower-case (config/domain-config.ts domainList); empty turns the feature off. */
  constructor(domains: readonly string[]) {
    this.domains = [...domains].sort((a, b) => b.length - a.length);
  }

  get isEnabled(): boolean {
    return this.domains.length > 0;
  }

  /**
   * The bucket a Host header names, or undefined for path-style: no Host, a Host that is a domain itself, an IP
   * address, or any name not under a domain. The port is ignored, and so are letter case and a final dot (DNS ignores
   * both). Bucket names with dots work (`my.bucket.example.com` is `my.bucket` under `example.com`). The name is not
   * validated here: a bucket that cannot exist is NoSuchBucket, as for path-style.
   */
  bucketOf(host: string | undefined): string | undefined {
    if (host === undefined || this.domains.length === 0 || host.startsWith('[')) return undefined;
    const colon = host.lastIndexOf(':');
    let name = (colon < 0 ? host : host.slice(0, colon)).toLowerCase();
    if (name.endsWith('.')) name = name.slice(0, -1);
    // A domain itself is the service endpoint, even when it lies under another domain of the list.
    if (this.domains.includes(name)) return undefined;
    for (const domain of this.domains) {
      if (name.length > domain.length + 1 && name.endsWith(domain) && name[name.length - domain.length - 1] === '.') {
        return name.slice(0, name.length - domain.length - 1);
      }
    }
    return undefined;
  }
}
