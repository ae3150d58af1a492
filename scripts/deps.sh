#!/bin/bash
# Install, with apt-get, whatever of the project's build and run
# dependencies is missing.  Quiet when everything is there already.
#
#   scripts/deps.sh [PACKAGE]...   also the packages named (make fuzz)
set -euo pipefail

pkgs=(
	linux-source-6.12 gcc libc6-dev make bc bison flex libelf-dev libssl-dev
	git xz-utils cpio gzip pkg-config python3 time
	libtraceevent-dev libtracefs-dev libtracecmd-dev trace-cmd
	zlib1g-dev libzstd-dev
	qemu-system-x86 busybox-static
	prometheus-node-exporter prometheus curl
	man-db libasan8 libubsan1
	"$@"
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && { echo "deps: all ${#pkgs[@]} packages present"; exit 0; }

echo "deps: installing ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
