#!/usr/bin/python3
"""boto3 versioning and object lock flows against Store: what boto3-versioning.test.ts runs and asserts on.

Usage: /usr/bin/python3 boto3_versioning.py <endpoint> <bucket-prefix>
Credentials come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. Prints one JSON object on stdout; any
unexpected exception exits non-zero with a traceback on stderr.
"""
import datetime
import json
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def failure(fn):
    """(S3 error code, HTTP status, x-amz-delete-marker header) of a call that must fail; None if it succeeded."""
    try:
        fn()
    except ClientError as err:
        headers = err.response.get('ResponseMetadata', {}).get('HTTPHeaders', {})
        return [err.response['Error']['Code'], err.response['ResponseMetadata']['HTTPStatusCode'],
                headers.get('x-amz-delete-marker')]
    return None


def in_days(days):
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return now + datetime.timedelta(days=days)


def versioning_flow(s3, resource, bucket):
    out = {}
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={'Status': 'Enabled'})
    out['status'] = s3.get_bucket_versioning(Bucket=bucket).get('Status')
    v1 = s3.put_object(Bucket=bucket, Key='doc.txt', Body=b'first')['VersionId']
    v2 = s3.put_object(Bucket=bucket, Key='doc.txt', Body=b'second')['VersionId']
    out['distinctIds'] = v1 != v2
    out['current'] = s3.get_object(Bucket=bucket, Key='doc.txt')['Body'].read().decode()
    out['byVersion'] = s3.get_object(Bucket=bucket, Key='doc.txt', VersionId=v1)['Body'].read().decode()
    listed = s3.list_object_versions(Bucket=bucket, Prefix='doc.txt')
    out['listed'] = [[v['VersionId'] == v2, v['IsLatest']] for v in listed['Versions']]

    marker = s3.delete_object(Bucket=bucket, Key='doc.txt')
    out['marker'] = {'deleteMarker': marker.get('DeleteMarker'), 'hasId': bool(marker.get('VersionId'))}
    out['getDeleted'] = failure(lambda: s3.get_object(Bucket=bucket, Key='doc.txt'))
    out['getMarkerById'] = failure(lambda: s3.get_object(Bucket=bucket, Key='doc.txt', VersionId=marker['VersionId']))
    out['noSuchVersion'] = failure(lambda: s3.get_object(Bucket=bucket, Key='doc.txt', VersionId='0190a0a0-0000-7000-8000-000000000000'))
    s3.delete_object(Bucket=bucket, Key='doc.txt', VersionId=marker['VersionId'])
    out['restored'] = s3.get_object(Bucket=bucket, Key='doc.txt')['Body'].read().decode()

    # Restore an older version by copying it over the current one.
    s3.copy_object(Bucket=bucket, Key='doc.txt', CopySource={'Bucket': bucket, 'Key': 'doc.txt', 'VersionId': v1})
    out['copiedBack'] = s3.get_object(Bucket=bucket, Key='doc.txt')['Body'].read().decode()

    for i in range(3):
        for j in range(2):
            s3.put_object(Bucket=bucket, Key=f'many/{i}', Body=f'{i}.{j}'.encode())
    pages = s3.get_paginator('list_object_versions').paginate(Bucket=bucket, Prefix='many/', PaginationConfig={'PageSize': 4})
    out['pages'] = [[v['Key'] for v in p.get('Versions', [])] for p in pages]

    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={'Status': 'Suspended'})
    suspended = s3.put_object(Bucket=bucket, Key='doc.txt', Body=b'null version')
    out['suspendedPutVersionId'] = suspended.get('VersionId')
    out['suspendedHeadVersionId'] = s3.head_object(Bucket=bucket, Key='doc.txt')['VersionId']
    s3.put_object(Bucket=bucket, Key='doc.txt', Body=b'null again')
    versions = s3.list_object_versions(Bucket=bucket, Prefix='doc.txt')['Versions']
    out['nullVersions'] = sum(1 for v in versions if v['VersionId'] == 'null')
    out['versionCount'] = len(versions)

    out['deleteNonEmpty'] = failure(lambda: s3.delete_bucket(Bucket=bucket))
    # The usual way to empty a versioned bucket: every version and delete marker, through the resource API.
    resource.Bucket(bucket).object_versions.delete()
    s3.delete_bucket(Bucket=bucket)
    out['bucketGone'] = failure(lambda: s3.head_bucket(Bucket=bucket))
    return out


def lock_flow(s3, bucket):
    out = {}
    s3.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
    out['versioning'] = s3.get_bucket_versioning(Bucket=bucket).get('Status')
    s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration={
        'ObjectLockEnabled': 'Enabled', 'Rule': {'DefaultRetention': {'Mode': 'GOVERNANCE', 'Days': 1}}})
    out['config'] = s3.get_object_lock_configuration(Bucket=bucket)['ObjectLockConfiguration']

    gov = s3.put_object(Bucket=bucket, Key='governed', Body=b'g')['VersionId']
    head = s3.head_object(Bucket=bucket, Key='governed')
    out['defaultMode'] = head.get('ObjectLockMode')
    out['deleteGoverned'] = failure(lambda: s3.delete_object(Bucket=bucket, Key='governed', VersionId=gov))
    s3.delete_object(Bucket=bucket, Key='governed', VersionId=gov, BypassGovernanceRetention=True)
    out['governedGone'] = failure(lambda: s3.head_object(Bucket=bucket, Key='governed', VersionId=gov))

    comp = s3.put_object(Bucket=bucket, Key='compliant', Body=b'c', ObjectLockMode='COMPLIANCE',
                         ObjectLockRetainUntilDate=in_days(2))['VersionId']
    out['complianceRetention'] = s3.get_object_retention(Bucket=bucket, Key='compliant', VersionId=comp)['Retention']['Mode']
    out['deleteCompliant'] = failure(lambda: s3.delete_object(Bucket=bucket, Key='compliant', VersionId=comp,
                                                              BypassGovernanceRetention=True))
    out['shortenCompliant'] = failure(lambda: s3.put_object_retention(
        Bucket=bucket, Key='compliant', VersionId=comp, Retention={'Mode': 'COMPLIANCE', 'RetainUntilDate': in_days(1)}))
    s3.put_object_retention(Bucket=bucket, Key='compliant', VersionId=comp,
                            Retention={'Mode': 'COMPLIANCE', 'RetainUntilDate': in_days(3)})
    out['plainDelete'] = s3.delete_object(Bucket=bucket, Key='compliant').get('DeleteMarker')

    held = s3.put_object(Bucket=bucket, Key='held', Body=b'h', ObjectLockLegalHoldStatus='ON')['VersionId']
    out['legalHold'] = s3.get_object_legal_hold(Bucket=bucket, Key='held', VersionId=held)['LegalHold']['Status']
    out['deleteHeld'] = failure(lambda: s3.delete_object(Bucket=bucket, Key='held', VersionId=held,
                                                         BypassGovernanceRetention=True))
    s3.put_object_legal_hold(Bucket=bucket, Key='held', VersionId=held, LegalHold={'Status': 'OFF'})
    s3.delete_object(Bucket=bucket, Key='held', VersionId=held, BypassGovernanceRetention=True)
    out['heldGone'] = failure(lambda: s3.head_object(Bucket=bucket, Key='held', VersionId=held))

    s3.put_object_tagging(Bucket=bucket, Key='compliant', VersionId=comp, Tagging={'TagSet': [{'Key': 'kept', 'Value': 'yes'}]})
    out['tags'] = s3.get_object_tagging(Bucket=bucket, Key='compliant', VersionId=comp)['TagSet']
    out['deleteBucket'] = failure(lambda: s3.delete_bucket(Bucket=bucket))
    out['lockOnPlainBucket'] = failure(lambda: s3.put_object(Bucket=bucket + '-plain', Key='k', Body=b'x',
                                                             ObjectLockLegalHoldStatus='ON'))
    return out


def main():
    endpoint, prefix = sys.argv[1], sys.argv[2]
    config = Config(s3={'addressing_style': 'path'}, signature_version='s3v4', retries={'max_attempts': 1})
    s3 = boto3.client('s3', endpoint_url=endpoint, region_name='us-east-1', config=config)
    resource = boto3.resource('s3', endpoint_url=endpoint, region_name='us-east-1', config=config)
    s3.create_bucket(Bucket=prefix + '-lock-plain')
    out = {'boto3': boto3.__version__}
    out['versioning'] = versioning_flow(s3, resource, prefix + '-ver')
    out['lock'] = lock_flow(s3, prefix + '-lock')
    print(json.dumps(out))


if __name__ == '__main__':
    main()
