#!/usr/bin/env bash
# Installs the S3 clients the gateway's tests run against, from Debian's packages, when they are
# missing: the AWS CLI (/usr/bin/aws), rclone, and boto3 for Debian's python3. Written by other
# people, they check the gateway against what S3 clients really send and expect.
set -euo pipefail

missing=()
[ -x /usr/bin/aws ] || missing+=(awscli)
[ -x /usr/bin/rclone ] || missing+=(rclone)
/usr/bin/python3 -c 'import boto3' >/dev/null 2>&1 || missing+=(python3-boto3)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-s3-clients: awscli, rclone and python3-boto3 are already installed"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo -n)
echo "install-s3-clients: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-s3-clients: done"
