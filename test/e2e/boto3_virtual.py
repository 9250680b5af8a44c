#!/usr/bin/python3
"""boto3 with virtual-hosted–style addressing against Store (STORE_DOMAIN): the flow boto3-virtual-host.test.ts runs.

Usage: /usr/bin/python3 boto3_virtual.py <domain> <port> <bucket> <workdir>
Every name under <domain> resolves to 127.0.0.1 inside this process (socket.getaddrinfo is wrapped): no /etc/hosts.
Credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. Prints one JSON object on stdout.
"""
import hashlib
import json
import os
import socket
import sys
import urllib.parse

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

from s3_http import MIB, http, post_form
DOMAIN, PORT, BUCKET, WORK = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
RESOLVED = []

_getaddrinfo = socket.getaddrinfo


def test_getaddrinfo(host, *args, **kwargs):
    """The test's DNS: <domain> and every name under it are 127.0.0.1; the names asked are kept as evidence."""
    if isinstance(host, str) and (host == DOMAIN or host.endswith('.' + DOMAIN)):
        RESOLVED.append(host)
        host = '127.0.0.1'
    return _getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = test_getaddrinfo


def client(**config):
    endpoint = f'http://{DOMAIN}:{PORT}'
    return boto3.client('s3', endpoint_url=endpoint, region_name='us-east-1',
                        config=Config(s3={'addressing_style': 'virtual'}, retries={'max_attempts': 1}, **config))


def main():
    out = {}
    s3 = client(signature_version='s3v4')
    s3.create_bucket(Bucket=BUCKET)
    out['buckets'] = [b['Name'] for b in s3.list_buckets()['Buckets']]

    big = os.path.join(WORK, 'big.bin')
    with open(big, 'wb') as f:
        f.write(os.urandom(12 * MIB))
    # 12 MiB over an 8 MiB threshold: CreateMultipartUpload, two UploadPart (each with Expect: 100-continue), Complete.
    transfer = TransferConfig(multipart_threshold=8 * MIB, multipart_chunksize=8 * MIB, max_concurrency=2)
    s3.upload_file(big, BUCKET, 'dir/big.bin', Config=transfer)
    s3.put_object(Bucket=BUCKET, Key='dir/small ü+.txt', Body=b'small over a virtual host\n')
    head = s3.head_object(Bucket=BUCKET, Key='dir/big.bin')
    out['big'] = {'etag': head['ETag'], 'size': head['ContentLength']}
    s3.download_file(BUCKET, 'dir/big.bin', big + '.down', Config=transfer)
    out['bigMatches'] = hashlib.sha256(open(big + '.down', 'rb').read()).hexdigest() == hashlib.sha256(open(big, 'rb').read()).hexdigest()
    out['keys'] = [o['Key'] for o in s3.list_objects_v2(Bucket=BUCKET)['Contents']]

    url = s3.generate_presigned_url('get_object', Params={'Bucket': BUCKET, 'Key': 'dir/small ü+.txt'}, ExpiresIn=300)
    status, body, _ = http('GET', url)
    out['presignedGet'] = {'host': urllib.parse.urlsplit(url).hostname, 'status': status, 'body': body.decode()}

    # Signature Version 2 everywhere: botocore signs /bucket/key (its auth_path) while sending /key to bucket.domain.
    # (Not a sub-resource such as ?versioning: botocore 1.43 signs `/bucket?versioning?versioning` for those, which no
    # server, AWS included, can match.)
    v2 = client(signature_version='s3')
    v2.put_object(Bucket=BUCKET, Key='v2/header.txt', Body=b'header-signed v2\n', ContentType='text/plain')
    out['v2Header'] = {
        'body': v2.get_object(Bucket=BUCKET, Key='v2/header.txt')['Body'].read().decode(),
        'keys': [o['Key'] for o in v2.list_objects(Bucket=BUCKET, Prefix='v2/')['Contents']],
    }
    legacy = client()
    url = legacy.generate_presigned_url('get_object', Params={'Bucket': BUCKET, 'Key': 'v2/header.txt'}, ExpiresIn=300)
    status, body, _ = http('GET', url)
    out['v2Presigned'] = {'sigv2': 'AWSAccessKeyId=' in url, 'host': urllib.parse.urlsplit(url).hostname, 'status': status,
                          'body': body.decode()}
    post = legacy.generate_presigned_post(BUCKET, 'v2/post ${filename}', ExpiresIn=300, Conditions=[['starts-with', '$key', 'v2/post ']])
    status, _, code = post_form(post['url'], post['fields'], 'form.txt', b'posted to the bucket host\n')
    out['v2Post'] = {'url': post['url'], 'status': status, 'code': code,
                     'stored': s3.get_object(Bucket=BUCKET, Key='v2/post form.txt')['Body'].read().decode()}

    try:
        s3.get_object(Bucket=BUCKET, Key='no such key')
    except ClientError as err:
        out['missingKey'] = err.response['Error']['Code']
    keys = [o['Key'] for o in s3.list_objects_v2(Bucket=BUCKET)['Contents']]
    s3.delete_objects(Bucket=BUCKET, Delete={'Objects': [{'Key': k} for k in keys]})
    s3.delete_bucket(Bucket=BUCKET)
    out['bucketsAfter'] = [b['Name'] for b in s3.list_buckets()['Buckets']]
    out['resolved'] = sorted(set(RESOLVED))
    print(json.dumps(out))


if __name__ == '__main__':
    main()
