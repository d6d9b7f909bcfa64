package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The parsers of /sys/block/DEV/stat, /proc/PID/stat, blkio.throttle.io_serviced and /proc/self/cgroup. */
class KernelCountersTest {
  @Test
  void blockStatOfANewKernel() {
    // 17 fields (kernel 5.5+): reads, merges, sectors, ticks, writes, merges, sectors, ticks, ...
    KernelCounters.BlockStat s = KernelCounters.parseBlockStat(
        "    1234        5    98765      321      456        7    24680      654        0     1000     2000       0        0        0        0       0        0\n");
    assertEquals(new KernelCounters.BlockStat(1234, 98765, 456, 24680), s);
  }

  @Test
  void blockStatOfAnOldKernelAndDifference() {
    KernelCounters.BlockStat before = KernelCounters.parseBlockStat("10 0 80 1 20 0 160 2 0 3 3");
    KernelCounters.BlockStat after = KernelCounters.parseBlockStat("15 1 120 4 22 0 176 2 0 5 6");
    assertEquals(new KernelCounters.BlockStat(5, 40, 2, 16), after.minus(before));
  }

  @Test
  void blockStatWithTooFewFieldsIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> KernelCounters.parseBlockStat("1 2 3"));
  }

  @Test
  void cpuTicksAreUtimePlusStime() {
    String line = "4242 (java) S 1 4242 4242 0 -1 4194560 90000 0 12 0 7000 1500 3 4 20 0 80 0 12345 "
        + "4000000000 200000 18446744073709551615 1 1 0 0 0 0 0 4096 1260 0 0 0 17 1 0 0 0 0 0";
    assertEquals(8500, KernelCounters.parseCpuTicks(line));
  }

  @Test
  void cpuTicksSurviveACommandWithSpacesAndParentheses() {
    String line = "77 (a) b (c) R 1 77 77 0 -1 0 0 0 0 0 250 50 0 0 20 0 1 0 1 1 1 1";
    assertEquals(300, KernelCounters.parseCpuTicks(line));
    assertThrows(IllegalArgumentException.class, () -> KernelCounters.parseCpuTicks("77 java R 1 2 3"));
    assertThrows(IllegalArgumentException.class, () -> KernelCounters.parseCpuTicks("77 (java) R 1 2 3"));
  }

  @Test
  void ioServicedOfOneDevice() {
    String content = "253:0 Read 9\n253:0 Write 3\n7:3 Read 1200\n7:3 Write 45\n7:3 Sync 1000\n7:3 Async 245\n"
        + "7:3 Total 1245\nTotal 1257\n";
    assertArrayEquals(new long[] {1200, 45}, KernelCounters.parseIoServiced(content, "7:3"));
    assertArrayEquals(new long[] {0, 0}, KernelCounters.parseIoServiced(content, "7:4"));
    assertArrayEquals(new long[] {0, 0}, KernelCounters.parseIoServiced("Total 0\n", "7:3"));
  }

  @Test
  void ownCgroupOfAController() {
    String self = "9:name=systemd:/\n7:blkio:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/jobs\n0::/\n";
    assertEquals("/process_api/abc", EmulatedHdd.ownCgroup(self, "memory"));
    assertEquals("/", EmulatedHdd.ownCgroup(self, "blkio"));
    assertEquals("/jobs", EmulatedHdd.ownCgroup(self, "cpuacct"));
    assertEquals("/", EmulatedHdd.ownCgroup("0::/user.slice\n", "memory"), "cgroup v2 only: no v1 line");
  }
}
