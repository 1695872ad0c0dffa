# SPDX-License-Identifier: GPL-2.0
#
# Where the test VM's vCPUs are, for a guest that hangs without a word:
#
#	VM_QEMU_ARGS=-s VM_APPEND=nokaslr tests/vm/run check ...
#	gdb -batch -ex 'target remote :1234' -x tests/vm/vcpus.gdb
#
# For each vCPU: its pc, stack pointer, flags (interrupts on: 0x200) and
# rdi, then every kernel exception frame (rip, cs 0x10, flags, rsp, ss
# 0x18) found on its stack page, with the bytes in memory at rip - 1. Run
# it a few times: a vCPU that keeps coming back to the same place is stuck
# there. Map the addresses with the /proc/kallsyms of a nokaslr guest.
# See "A QEMU TCG defect" in Documentation/testing.rst.

set pagination off
set confirm off
define frames
  set $cnt = (0x1000 - ((unsigned long)$rsp & 0xfff)) / 8
  if $cnt > 120
    set $cnt = 120
  end
  set $j = 0
  while $j < $cnt - 4
    set $w = (unsigned long *)((unsigned long)$rsp + 8 * $j)
    if $w[1] == 0x10 && $w[4] == 0x18
      printf "FRAME rip=%lx fl=%lx sp=%lx bytes: ", $w[0], $w[2], $w[3]
      output/x *(unsigned char (*)[6])($w[0] - 1)
      printf "\n"
    end
    set $j = $j + 1
  end
end
thread 1
printf "CPU0 pc=%lx rsp=%lx fl=%lx rdi=%lx\n", $pc, $rsp, $eflags, $rdi
frames
thread 2
printf "CPU1 pc=%lx rsp=%lx fl=%lx rdi=%lx\n", $pc, $rsp, $eflags, $rdi
frames
