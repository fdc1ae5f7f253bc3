#!/usr/bin/env python3
"""How fast this machine hands out fresh memory, a fact of the machine that
bounds every load: `fresh memory: A GB/s in 4 KiB pages (U us a fault), B
GB/s in huge pages`.

    fresh_memory.py [MIB]

Maps MIB (default 256) of anonymous memory and writes a byte in each 4 KiB
page twice: the first pass faults (the kernel finds, zeroes and maps each
page; under a hypervisor the host may have to back it too), the second
does not, and is subtracted as the loop's own cost. Then the same with
madvise(MADV_HUGEPAGE), a fault per 2 MiB. Bare metal gives several GB/s;
a VM whose host takes back the guest's free memory can give 20x less, and
a load's page faults then cost more than its parsing. bench.sh prints the
line above its table. Memory the process freed just before is often fast
again: the huge-page figure varies from run to run on such a VM.
"""
import mmap
import sys
import time

PAGE = 4096


def touch(m, size):
    """Seconds to write one byte in each page of m."""
    t0 = time.perf_counter()
    for off in range(0, size, PAGE):
        m[off] = 1
    return time.perf_counter() - t0


def fault_seconds(size, huge):
    """Seconds the first touch of size fresh bytes spends in page faults."""
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if huge and hasattr(mmap, "MADV_HUGEPAGE"):
        m.madvise(mmap.MADV_HUGEPAGE)
    first = touch(m, size)
    again = touch(m, size)
    m.close()
    return max(first - again, 1e-9)


def main():
    size = (int(sys.argv[1]) if len(sys.argv) > 1 else 256) << 20
    small = fault_seconds(size, False)
    huge = fault_seconds(size, True)
    print("fresh memory: %.2f GB/s in 4 KiB pages (%.1f us a fault), %.2f GB/s in huge pages"
          % (size / small / 1e9, small / (size / PAGE) * 1e6, size / huge / 1e9))


if __name__ == "__main__":
    main()
