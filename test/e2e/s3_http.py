"""Plain-HTTP helpers the boto3 e2e scripts share (boto3_flow.py, boto3_virtual.py): what a browser or curl would
send next to boto3 (presigned URLs, POST forms), answered as (status, body, S3 error code or None)."""
import hashlib
import os
import urllib.error
import urllib.request

from botocore.exceptions import ClientError

MIB = 1024 * 1024


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(MIB), b''):
            h.update(chunk)
    return h.hexdigest()


def http(method, url, data=None, headers=None):
    """(status, body, S3 error code or None) of a plain urllib request; HTTP errors are returned, not raised."""
    return send(urllib.request.Request(url, data=data, method=method, headers=headers or {}))


def send(req):
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            return res.status, res.read(), None
    except urllib.error.HTTPError as err:
        body = err.read()
        code = body.split(b'<Code>')[1].split(b'</Code>')[0].decode() if b'<Code>' in body else None
        return err.code, body, code


def post_form(url, fields, filename, content):
    """(status, body, code) of a multipart/form-data POST (fields first, the file last), as a browser sends it."""
    boundary = 'boto3-e2e-' + os.urandom(8).hex()
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                 f'Content-Type: text/plain\r\n\r\n'.encode() + content + b'\r\n')
    parts.append(f'--{boundary}--\r\n'.encode())
    return http('POST', url, data=b''.join(parts), headers={'Content-Type': f'multipart/form-data; boundary={boundary}'})


def error_code(fn):
    try:
        fn()
    except ClientError as err:
        return err.response['Error']['Code']
    return None
