#!/bin/sh
# CQSim (its public repository checked out outside this one; its code is never committed here)
# on an SWF trace: EASY backfilling (backfill=1), no start window (win=0), FCFS order (its
# default algorithm, the wait time), every job read (read_num=-1), debug output off
# (debug_lvl=0). They are set in a copy of its system config (Config/bench_sys.set), not on its
# command line, which treats a 0 as "not given".
#
#   sh tests/benchmarks/external/cqsim_easy.sh CQSIM_CHECKOUT TRACE.swf[.gz] [PYTHON]
#
# The trace is copied (decompressed) into the checkout's data/InputFiles, where CQSim reads it;
# CQSim runs from its src/ folder, as its README says, and writes under its data/ folder.
set -eu
root=$(cd "$1" && pwd)
trace=$2
python=${3:-python3}
name=bench-$(basename "$trace" .gz)
mkdir -p "$root/data/InputFiles" "$root/data/Results" "$root/data/Fmt" "$root/data/Debug"
case "$trace" in
  *.gz) gzip -dc "$trace" > "$root/data/InputFiles/$name" ;;
  *) cp "$trace" "$root/data/InputFiles/$name" ;;
esac
cd "$root/src"
sed -e 's/^read_num=.*/read_num=-1/' -e 's/^backfill=.*/backfill=1/' -e 's/^win=.*/win=0/' \
  -e 's/^debug_lvl=.*/debug_lvl=0/' Config/config_sys.set > Config/bench_sys.set
exec "$python" cqsim.py -j "$name" -n "$name" -C bench_sys.set
