#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/wirecompat-pair.sh [OUTDIR] - host side of the wire-compatibility test:
# boots two VMs with scripts/vmpair, VM1 with the module (A_ENV="ESP_MODULE=/path/x.ko"),
# VM2 on the stock ESP path; both run selftests/wirecompat-guest.sh (every algorithm x
# mode x family, WIRE_MB MiB each way, sha256 compared). Exit status: non-zero if either
# VM failed. Env: KV, A_ENV, B_ENV, WIRE_MB (1), WIRE_ALGOS, TIMEOUT (600).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
export VM_ENV="${VM_ENV:-} WIRE_MB WIRE_ALGOS BARRIER_TIMEOUT"
export WIRE_MB=${WIRE_MB:-1} WIRE_ALGOS=${WIRE_ALGOS:-} BARRIER_TIMEOUT=${BARRIER_TIMEOUT:-1200}
export TIMEOUT=${TIMEOUT:-600}
exec "$HERE/../scripts/vmpair" "$HERE/wirecompat-guest.sh" "$HERE/wirecompat-guest.sh" ${1:+"$1"}
