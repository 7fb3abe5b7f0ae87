"""boto3 against the gateway, as a weight streamer uses S3, and as any S3 program meets its errors.

Usage: boto3_streamer.py ENDPOINT BUCKET KEY LOCAL_FILE
with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set. KEY names a safetensors file of a READY
checkpoint and LOCAL_FILE is the same file on disk. Prints one line per check; exits non-zero,
saying what differed, on the first that fails.
"""
import json
import os
import struct
import sys
import urllib.error
import urllib.request

import boto3
import botocore.config
import botocore.exceptions


def client(endpoint, secret=None, signature_version="s3v4"):
    kwargs = {}
    if secret is not None:
        kwargs = {"aws_access_key_id": os.environ["AWS_ACCESS_KEY_ID"], "aws_secret_access_key": secret}
    # Older botocore presigns with Signature Version 2 unless told s3v4; the gateway takes only V4.
    config = botocore.config.Config(signature_version=signature_version, s3={"addressing_style": "path"},
                                    retries={"max_attempts": 1})
    return boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1", config=config, **kwargs)


def expect_error(call, status, code):
    try:
        call()
    except botocore.exceptions.ClientError as e:
        got_status = e.response["ResponseMetadata"]["HTTPStatusCode"]
        got_code = e.response["Error"]["Code"]
        if (got_status, got_code) != (status, code):
            sys.exit(f"expected {status} {code}, got {got_status} {got_code}: {e}")
        print(f"OK error {status} {code}")
        return
    sys.exit(f"expected {status} {code}, but the call succeeded")


def main(endpoint, bucket, key, local_file):
    s3 = client(endpoint)
    with open(local_file, "rb") as f:
        local = f.read()

    # A streamer reads the 8-byte header length, then the JSON header, with two ranged GETs.
    first = s3.get_object(Bucket=bucket, Key=key, Range="bytes=0-7")
    length_bytes = first["Body"].read()
    assert first["ContentRange"] == f"bytes 0-7/{len(local)}", first["ContentRange"]
    (header_length,) = struct.unpack("<Q", length_bytes)
    second = s3.get_object(Bucket=bucket, Key=key, Range=f"bytes=8-{8 + header_length - 1}")
    header_bytes = second["Body"].read()
    assert header_bytes == local[8:8 + header_length], "the header differs from the local file's"
    header = json.loads(header_bytes)
    tensors = {name: t for name, t in header.items() if name != "__metadata__"}
    assert tensors, "no tensors in the header"
    data_end = max(t["data_offsets"][1] for t in tensors.values())
    assert 8 + header_length + data_end == len(local), "the header does not cover the file"
    print(f"OK header of {header_length} bytes, {len(tensors)} tensors")

    # One tensor's bytes, by the offsets the header gives, as the streamer then reads them.
    name, tensor = sorted(tensors.items())[0]
    begin, end = (8 + header_length + o for o in tensor["data_offsets"])
    data = s3.get_object(Bucket=bucket, Key=key, Range=f"bytes={begin}-{end - 1}")["Body"].read()
    assert data == local[begin:end], f"tensor {name} differs"
    print(f"OK tensor {name}, {end - begin} bytes")

    head = s3.head_object(Bucket=bucket, Key=key)
    assert head["ContentLength"] == len(local), head["ContentLength"]
    print(f"OK head {head['ETag']}")

    part = s3.get_object(Bucket=bucket, Key=key, PartNumber=1)
    assert part["ContentRange"] == f"bytes 0-{len(local) - 1}/{len(local)}", part["ContentRange"]
    assert part["Body"].read() == local, "part 1 is not the whole file"
    expect_error(lambda: s3.get_object(Bucket=bucket, Key=key, PartNumber=2), 416, "InvalidPartNumber")
    print("OK part 1 is the whole file")

    keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, PaginationConfig={"PageSize": 2})
            for o in page.get("Contents", [])]
    assert key in keys, f"{key} not in listing {keys}"
    print(f"OK listed {len(keys)} keys, two a page")

    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=300)
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Range": "bytes=0-7"})) as response:
            assert response.read() == local[:8], "presigned read differs"
    except urllib.error.HTTPError as e:
        sys.exit(f"presigned GET of {url} failed with {e.code}: {e.read().decode()}")
    print("OK presigned URL")

    old_style = client(endpoint, signature_version="s3").generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key})
    try:
        urllib.request.urlopen(old_style)
        sys.exit("a Signature Version 2 URL was served")
    except urllib.error.HTTPError as e:
        body = e.read().decode()
        assert e.code == 400 and "<Code>InvalidRequest</Code>" in body, f"{e.code} {body}"
    print("OK Signature Version 2 refused")

    missing = key.rsplit("/", 1)[0] + "/no-such-file.bin"
    expect_error(lambda: s3.get_object(Bucket=bucket, Key=missing), 404, "NoSuchKey")
    expect_error(lambda: s3.list_objects_v2(Bucket="no-such-bucket"), 404, "NoSuchBucket")
    expect_error(lambda: s3.get_object(Bucket=bucket, Key=key, Range=f"bytes={len(local)}-"), 416, "InvalidRange")
    expect_error(lambda: client(endpoint, secret="not-the-secret").get_object(Bucket=bucket, Key=key), 403,
                 "SignatureDoesNotMatch")


if __name__ == "__main__":
    main(*sys.argv[1:])
