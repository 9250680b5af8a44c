import { describe, expect, it } from 'vitest';
import { clientSnippets, credentialsCsv, credentialsJson, profileName, s3Endpoint } from './client-snippets';

const key = { accessKeyId: 'AKIAEXAMPLE000000001', secretAccessKey: 'se/cr+et_-x' };
const conn = { endpoint: 'https://store.example.com/storage', region: 'eu-west-1' };
const snippet = (id: string, c = conn, k: typeof key & { name?: string } = key): string =>
  clientSnippets(k, c).find((s) => s.id === id)?.text ?? '';

describe('s3Endpoint', () => {
  it('is the console origin under MOUNT_PATH when STORE_ENDPOINT is unset', () => {
    expect(s3Endpoint({ configured: null, origin: 'http://127.0.0.1:9000', mount: '' })).toBe('http://127.0.0.1:9000');
    expect(s3Endpoint({ configured: '', origin: 'https://a.example', mount: '/storage' })).toBe(
      'https://a.example/storage',
    );
  });

  it('uses STORE_ENDPOINT: a host gets the console scheme and MOUNT_PATH, a URL is kept as given', () => {
    expect(s3Endpoint({ configured: 's3.example.com', origin: 'https://console.lan', mount: '/storage' })).toBe(
      'https://s3.example.com/storage',
    );
    expect(s3Endpoint({ configured: 's3.example.com:9000', origin: 'http://x', mount: '' })).toBe(
      'http://s3.example.com:9000',
    );
    expect(s3Endpoint({ configured: 'https://s3.example.com/base/', origin: 'http://x', mount: '/m' })).toBe(
      'https://s3.example.com/base',
    );
  });
});

describe('credential files', () => {
  it('writes JSON with the SDK field names, the endpoint and the region', () => {
    expect(JSON.parse(credentialsJson(key, conn))).toEqual({ ...key, ...conn });
  });

  it("writes CSV in the AWS console's shape, quoting only what needs it", () => {
    expect(credentialsCsv(key)).toBe('Access key ID,Secret access key\r\nAKIAEXAMPLE000000001,se/cr+et_-x\r\n');
    expect(credentialsCsv({ accessKeyId: 'A', secretAccessKey: 'a,"b' })).toBe(
      'Access key ID,Secret access key\r\nA,"a,""b"\r\n',
    );
  });
});

describe('clientSnippets', () => {
  it('offers the five clients in order', () => {
    expect(clientSnippets(key, conn).map((s) => s.id)).toEqual(['aws-cli', 'boto3', 'js-sdk', 'rclone', 's3cmd']);
  });

  it('configures an AWS CLI profile and passes --endpoint-url, shell-quoting the values', () => {
    expect(snippet('aws-cli', conn, { ...key, name: 'Backup job #1' })).toBe(
      [
        "aws configure set aws_access_key_id 'AKIAEXAMPLE000000001' --profile backup-job-1",
        "aws configure set aws_secret_access_key 'se/cr+et_-x' --profile backup-job-1",
        "aws configure set region 'eu-west-1' --profile backup-job-1",
        'aws configure set s3.addressing_style path --profile backup-job-1',
        '',
        "aws s3 ls --profile backup-job-1 --endpoint-url 'https://store.example.com/storage'",
      ].join('\n'),
    );
    expect(snippet('aws-cli', conn, { accessKeyId: 'A', secretAccessKey: "it's" })).toContain(`'it'\\''s'`);
  });

  it('gives boto3 the endpoint, keys, region and path-style addressing', () => {
    const text = snippet('boto3');
    expect(text).toContain('endpoint_url="https://store.example.com/storage",');
    expect(text).toContain('aws_access_key_id="AKIAEXAMPLE000000001",');
    expect(text).toContain('aws_secret_access_key="se/cr+et_-x",');
    expect(text).toContain('region_name="eu-west-1",');
    expect(text).toContain('Config(s3={"addressing_style": "path"})');
  });

  it('gives the JS SDK v3 forcePathStyle and escapes string literals', () => {
    const text = snippet('js-sdk', conn, { accessKeyId: 'A', secretAccessKey: 'q"\\' });
    expect(text).toContain("import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';");
    expect(text).toContain('forcePathStyle: true,');
    expect(text).toContain('endpoint: "https://store.example.com/storage",');
    expect(text).toContain('secretAccessKey: "q\\"\\\\",');
  });

  it('writes an rclone remote with provider Other', () => {
    expect(snippet('rclone')).toBe(
      [
        '[store]',
        'type = s3',
        'provider = Other',
        'access_key_id = AKIAEXAMPLE000000001',
        'secret_access_key = se/cr+et_-x',
        'endpoint = https://store.example.com/storage',
        'region = eu-west-1',
        'force_path_style = true',
      ].join('\n'),
    );
  });

  it('writes a path-style .s3cfg; a port is kept and plain http turns use_https off', () => {
    const text = snippet('s3cmd', { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1' });
    expect(text.split('\n')).toEqual([
      '[default]',
      'access_key = AKIAEXAMPLE000000001',
      'secret_key = se/cr+et_-x',
      'host_base = 127.0.0.1:9000',
      'host_bucket = 127.0.0.1:9000',
      'bucket_location = us-east-1',
      'use_https = False',
      'signature_v2 = False',
    ]);
  });

  it('warns in the .s3cfg that s3cmd cannot use a MOUNT_PATH prefix', () => {
    const text = snippet('s3cmd');
    expect(text.split('\n')[0]).toMatch(/^# s3cmd cannot .*\/storage/);
    expect(text).toContain('use_https = True');
  });
});

describe('snippets for a key scoped to a bucket', () => {
  const target = { bucket: 'team-data', prefix: 'team/' };
  const scoped = clientSnippets(key, conn, target);
  const text = (id: string): string => scoped.find((s) => s.id === id)?.text ?? '';

  it('list that bucket and prefix, which the key may, instead of the buckets, which it may not', () => {
    expect(text('aws-cli').split('\n').at(-1)).toBe(
      "aws s3 ls 's3://team-data/team/' --profile store --endpoint-url 'https://store.example.com/storage'",
    );
    expect(text('boto3')).toContain('s3.list_objects_v2(Bucket="team-data", Prefix="team/").get("Contents", [])');
    expect(text('js-sdk')).toContain('new ListObjectsV2Command({ Bucket: "team-data", Prefix: "team/" }),');
    expect(text('js-sdk')).not.toContain('ListBucketsCommand');
    expect(scoped.find((s) => s.id === 'rclone')?.hint).toContain('rclone ls store:team-data/team/');
    expect(scoped.find((s) => s.id === 's3cmd')?.hint).toContain('s3cmd ls s3://team-data/team/');
  });
});

describe('profileName', () => {
  it('is "store" without a usable name', () => {
    expect(profileName(undefined)).toBe('store');
    expect(profileName('***')).toBe('store');
    expect(profileName('CI deploy')).toBe('ci-deploy');
  });
});
