#!/bin/sh
G=$CAUSALPROF_REPO/build/tests/targets/gt_barrier
S=$CAUSALPROF_REPO/tests/targets/gt_barrier.c
cd /tmp
la=$(grep -n '/\* a line' $S | cut -d: -f1)
for r in 0 40 60; do $G -d 5 -a $r; done
$CPROF record --causal --progress progress --fixed-line gt_barrier.c:$la -o /tmp/a.data -- $G -d 30 2>&1 | tail -1
$CPROF report --causal -i /tmp/a.data
python3 $CAUSALPROF_REPO/build/dec.py /tmp/a.data | grep "^X" | head -8
echo "1..1"
echo "ok 1 smoke"
echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
