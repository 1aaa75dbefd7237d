#!/usr/bin/env bash
# Remakes the sample of tests/sass/test_sass_table.py from tests/sass/sample/:
# PTX with line info, ptxas, nvdisasm -gp (needs nvcc and nvdisasm; NVDISASM).
set -euo pipefail
cd "$(dirname "$0")/sample"
nvcc=${NVCC:-nvcc}
nvdisasm=${NVDISASM:-nvdisasm}
"$nvcc" -O3 -arch=sm_90 -lineinfo -std=c++20 -I. -ptx -o sample.ptx sample.cu
"$(dirname "$(command -v "$nvcc")")/ptxas" -arch=sm_90 -m64 --generate-line-info sample.ptx \
  -o sample.cubin
"$nvdisasm" -gp -c sample.cubin > sample.sass
"$nvdisasm" -gi -c sample.cubin > sample.gi.sass
rm sample.cubin
# Paths relative to the sample, so that the files do not depend on the checkout.
sed -i "s|$PWD/||g; s|\./lessons/|lessons/|g" sample.ptx sample.sass sample.gi.sass
