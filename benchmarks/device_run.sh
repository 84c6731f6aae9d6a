#!/usr/bin/env bash
# The one prepared script for a lent GPU machine (an H100/H200 with 16 cores): the GPU
# back-end side by side with one core and every core (bench_gpu.py), then the CPU's
# scaling with the threads (bench_scaling.py). Sized to finish within one 10-minute
# command; each part has its own time limit, and what a part wrote survives a later
# part's failure. Results go to $OUT (or ./device-out), named by the machine's GPU.
#
#   bash benchmarks/device_run.sh            # both parts
#   PARTS=gpu bash benchmarks/device_run.sh  # one part: gpu or scaling
#
# numba-cuda 0.30 does not import under numpy 2.5: where the machine has numpy 2.5,
# carry numpy 2.4 wheels (and, for the Dask parts, dask's) in .whl/; they are installed
# into /tmp/site, first on PYTHONPATH.
set -u
out="${OUT:-device-out}"
mkdir -p "$out"
parts="${PARTS:-gpu scaling}"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || echo "device_run: carried wheels not installed"
fi
export PYTHONPATH="/tmp/site:src" PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc;
  git log --oneline -1 2>/dev/null; python3 -c "import numpy, numba; print(numpy.__version__, numba.__version__)"; } \
  > "$out/machine.txt" 2>&1
for part in $parts; do
  case "$part" in
    gpu)  # JMI(20) on 20M x 100: CPU 1 and all cores, every GPU table and count plan,
          # every CLM criterion, CMI; ReliefF/SURF/Dask skipped to stay within the limit
      timeout 330 python3 benchmarks/bench_gpu.py --skip relief,surf,dask \
        --out "$out/gpu" > "$out/gpu.log" 2>&1
      echo "gpu: rc $?" ;;
    scaling)  # threads 1..16 on 20M rows: set-up, step, fit, floors; ReliefF; CMIM
      timeout 240 python3 benchmarks/bench_scaling.py --rows 20000000 \
        --threads 1,2,4,8,16 --repeats 2 --allow-dirty --out "$out/scaling" \
        > "$out/scaling.log" 2>&1
      echo "scaling: rc $?" ;;
    *) echo "device_run: unknown part $part" ;;
  esac
done
