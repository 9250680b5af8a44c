#!/usr/bin/python3
"""boto3 against Store: the flow boto3.test.ts runs and asserts on.

Usage: /usr/bin/python3 boto3_flow.py <endpoint> <bucket> <workdir>
Credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. Prints one JSON object on stdout; any
unexpected exception exits non-zero with a traceback on stderr.
"""
import hashlib
import json
import os
import re
import sys

import boto3
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

from s3_http import MIB, error_code, http, post_form, sha256_file


def main():
    endpoint, bucket, work = sys.argv[1], sys.argv[2], sys.argv[3]
    s3 = boto3.client(
        's3', endpoint_url=endpoint, region_name='us-east-1',
        config=Config(s3={'addressing_style': 'path'}, signature_version='s3v4', retries={'max_attempts': 1}),
    )
    out = {'boto3': boto3.__version__}
    s3.create_bucket(Bucket=bucket)
    out['buckets'] = [b['Name'] for b in s3.list_buckets()['Buckets']]

    big, small = os.path.join(work, 'big.bin'), os.path.join(work, 'small.txt')
    with open(big, 'wb') as f:
        f.write(os.urandom(20 * MIB))
    with open(small, 'wb') as f:
        f.write('small ü file\n'.encode())
    transfer = TransferConfig(multipart_threshold=8 * MIB, multipart_chunksize=8 * MIB, max_concurrency=4)
    s3.upload_file(big, bucket, 'dir/big.bin', Config=transfer)
    s3.upload_file(small, bucket, 'dir/small ü+.txt', Config=transfer,
                   ExtraArgs={'Metadata': {'purpose': 'e2e'}, 'ContentType': 'text/plain; charset=utf-8'})
    head_big = s3.head_object(Bucket=bucket, Key='dir/big.bin')
    head_small = s3.head_object(Bucket=bucket, Key='dir/small ü+.txt')
    out['big'] = {'etag': head_big['ETag'], 'size': head_big['ContentLength']}
    out['small'] = {'etag': head_small['ETag'], 'size': head_small['ContentLength'],
                    'metadata': head_small['Metadata'], 'contentType': head_small['ContentType'],
                    'md5': hashlib.md5(open(small, 'rb').read()).hexdigest()}

    for key, src in (('dir/big.bin', big), ('dir/small ü+.txt', small)):
        dst = src + '.down'
        s3.download_file(bucket, key, dst, Config=transfer)
        out.setdefault('downloadsMatch', []).append(sha256_file(dst) == sha256_file(src))

    # Managed copy: over the threshold s3transfer copies server-side with UploadPartCopy and byte ranges.
    s3.copy({'Bucket': bucket, 'Key': 'dir/big.bin'}, bucket, 'copy/big.bin', Config=transfer)
    s3.download_file(bucket, 'copy/big.bin', big + '.copy', Config=transfer)
    s3.copy_object(Bucket=bucket, Key='copy/small.txt', CopySource={'Bucket': bucket, 'Key': 'dir/small ü+.txt'},
                   MetadataDirective='REPLACE', Metadata={'purpose': 'copied'}, ContentType='text/x-copied')
    head_copy = s3.head_object(Bucket=bucket, Key='copy/small.txt')
    out['copy'] = {'bigEtag': s3.head_object(Bucket=bucket, Key='copy/big.bin')['ETag'],
                   'bigMatches': sha256_file(big + '.copy') == sha256_file(big),
                   'smallMetadata': head_copy['Metadata'], 'smallContentType': head_copy['ContentType'],
                   'smallEtag': head_copy['ETag']}

    url = s3.generate_presigned_url('get_object', Params={'Bucket': bucket, 'Key': 'dir/small ü+.txt'}, ExpiresIn=300)
    status, body, _ = http('GET', url)
    out['presignedGet'] = {'status': status, 'matches': body == open(small, 'rb').read()}
    flipped = re.sub(r'(X-Amz-Signature=[0-9a-f]{63})([0-9a-f])', lambda m: m.group(1) + ('1' if m.group(2) == '0' else '0'), url)
    status, _, code = http('GET', flipped)
    out['presignedTampered'] = {'status': status, 'code': code}
    put_url = s3.generate_presigned_url('put_object', Params={'Bucket': bucket, 'Key': 'dir/presigned put.txt'}, ExpiresIn=300)
    status, _, _ = http('PUT', put_url, data=b'put through a presigned URL\n')
    got = s3.get_object(Bucket=bucket, Key='dir/presigned put.txt')['Body'].read()
    out['presignedPut'] = {'status': status, 'stored': got == b'put through a presigned URL\n'}

    # A client with boto3's default configuration presigns with SigV2 (AWSAccessKeyId, Expires, Signature), URLs
    # and POST forms alike.
    legacy = boto3.client('s3', endpoint_url=endpoint, region_name='us-east-1',
                          config=Config(s3={'addressing_style': 'path'}, retries={'max_attempts': 1}))
    url = legacy.generate_presigned_url('get_object', Params={'Bucket': bucket, 'Key': 'dir/small ü+.txt'}, ExpiresIn=300)
    status, body, _ = http('GET', url)
    out['v2PresignedGet'] = {'sigv2': 'AWSAccessKeyId=' in url, 'status': status, 'matches': body == open(small, 'rb').read()}
    status, _, code = http('GET', url.replace('small', 'smalm'))
    out['v2PresignedTampered'] = {'status': status, 'code': code}
    # SigV2 signs Content-Type (urllib would send a form type otherwise): the URL is made for the type sent.
    put_url = legacy.generate_presigned_url('put_object', Params={'Bucket': bucket, 'Key': 'dir/v2 put.txt', 'ContentType': 'text/plain'},
                                            ExpiresIn=300)
    status, _, _ = http('PUT', put_url, data=b'put through a SigV2 URL\n', headers={'Content-Type': 'text/plain'})
    got = s3.get_object(Bucket=bucket, Key='dir/v2 put.txt')['Body'].read()
    out['v2PresignedPut'] = {'sigv2': 'AWSAccessKeyId=' in put_url, 'status': status, 'stored': got == b'put through a SigV2 URL\n'}
    post = legacy.generate_presigned_post(bucket, 'dir/v2 post ${filename}', ExpiresIn=300,
                                          Conditions=[['starts-with', '$key', 'dir/v2 post ']])
    status, _, code = post_form(post['url'], post['fields'], 'form.txt', b'posted with a SigV2 form\n')
    got = s3.get_object(Bucket=bucket, Key='dir/v2 post form.txt')['Body'].read()
    out['v2PresignedPost'] = {'sigv2': 'AWSAccessKeyId' in post['fields'], 'status': status, 'code': code,
                              'stored': got == b'posted with a SigV2 form\n'}
    s3.delete_object(Bucket=bucket, Key='dir/v2 put.txt')
    s3.delete_object(Bucket=bucket, Key='dir/v2 post form.txt')

    for i in range(7):
        s3.put_object(Bucket=bucket, Key=f'page/{i:02d}', Body=b'x' * i)
    pages = list(s3.get_paginator('list_objects_v2').paginate(Bucket=bucket, Prefix='page/', PaginationConfig={'PageSize': 3}))
    out['pages'] = [[o['Key'] for o in p.get('Contents', [])] for p in pages]
    prefixes = s3.list_objects_v2(Bucket=bucket, Delimiter='/')
    out['commonPrefixes'] = [p['Prefix'] for p in prefixes.get('CommonPrefixes', [])]

    out['missingKey'] = error_code(lambda: s3.get_object(Bucket=bucket, Key='no such key'))
    out['missingBucket'] = error_code(lambda: s3.list_objects_v2(Bucket='boto3-no-such-bucket'))
    out['deleteNonEmpty'] = error_code(lambda: s3.delete_bucket(Bucket=bucket))

    keys = [o['Key'] for p in s3.get_paginator('list_objects_v2').paginate(Bucket=bucket) for o in p.get('Contents', [])]
    deleted = s3.delete_objects(Bucket=bucket, Delete={'Objects': [{'Key': k} for k in keys + ['never existed']]})
    out['deleted'] = sorted(d['Key'] for d in deleted.get('Deleted', []))
    out['deleteErrors'] = deleted.get('Errors', [])
    out['keysBeforeDelete'] = sorted(keys)
    out['keyCountAfter'] = s3.list_objects_v2(Bucket=bucket)['KeyCount']
    s3.delete_bucket(Bucket=bucket)
    out['bucketGone'] = error_code(lambda: s3.head_bucket(Bucket=bucket))
    print(json.dumps(out))


if __name__ == '__main__':
    main()
