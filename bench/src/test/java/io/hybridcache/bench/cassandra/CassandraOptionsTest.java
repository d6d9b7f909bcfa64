package io.hybridcache.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.bench.BenchMain;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The cassandra subcommand's options alone (no node, no root, nothing mounted): defaults of each
 * --sstable-disk and the usage errors of bad combinations.
 */
class CassandraOptionsTest {
  private static CassandraCommand parse(String... args) {
    CommandLine cl = new CommandLine(new CassandraCommand());
    cl.parseArgs(args);
    return cl.getCommand();
  }

  private static String refused(String... args) {
    CassandraCommand c = parse(args);
    return assertThrows(ParameterException.class, c::validate).getMessage();
  }

  @Test
  void ssdIsTheDefaultAndKeepsTheFirstVersionsSettings() {
    CassandraCommand c = parse();
    c.validate();
    assertEquals(CassandraCommand.SstableDisk.ssd, c.sstableDisk);
    assertEquals(60_000, c.records());
    assertEquals(60, c.seconds());
    assertEquals("1G", c.heap());
    assertEquals(null, c.nodeMemory());
  }

  @Test
  void hddDefaultsMakeADataSetSeveralTimesTheNodesMemory() {
    CassandraCommand c = parse("--sstable-disk", "hdd");
    c.validate();
    assertEquals(1_000_000, c.records());
    assertEquals(60, c.seconds());
    assertEquals(3, c.pairs());
    assertEquals("512M", c.heap());
    long memory = io.hybridcache.bench.Sizes.parse(c.nodeMemory());
    long pageCache = memory - io.hybridcache.bench.Sizes.parse(c.heap()) - (350L << 20); // ~350 MB off-heap
    assertTrue(c.records() * CassandraCommand.RECORD_BYTES > 3 * pageCache, "the page cache holds < 1/3 of the data");
    assertTrue(c.flash() < c.records() * CassandraCommand.RECORD_BYTES / 2, "the flash tier holds < 1/2 of the data");
    assertEquals(new EmulatedHdd.Throttle(180, 180, 150L << 20, 150L << 20), c.throttle());
    assertEquals(Math.max(2L << 30, 3 * c.records() * CassandraCommand.RECORD_BYTES), c.imageBytes());
    assertEquals(30, c.warmupWindow());
    assertEquals(240, c.warmupMax());
  }

  @Test
  void hddOptionsAreTaken() {
    CassandraCommand c = parse("--sstable-disk", "hdd", "--hdd-read-iops", "120", "--hdd-write-iops", "90",
        "--hdd-read-bps", "100MiB", "--hdd-write-bps", "80m", "--hdd-image-size", "4GiB", "--records", "1000",
        "--warmup-window", "10", "--warmup-max", "60", "--warmup-min-gain", "0.02");
    c.validate();
    assertEquals(new EmulatedHdd.Throttle(120, 90, 100L << 20, 80L << 20), c.throttle());
    assertEquals(4L << 30, c.imageBytes());
    assertEquals(2L << 30, parse("--sstable-disk", "hdd", "--records", "1000").imageBytes(), "at least 2 GiB");
  }

  @Test
  void hddOnlyOptionsNeedHdd() {
    String m = refused("--hdd-read-iops", "100", "--warmup-window", "30");
    assertTrue(m.contains("--hdd-read-iops") && m.contains("--warmup-window") && m.contains("--sstable-disk hdd"), m);
    assertTrue(refused("--throttled-warmup").contains("--throttled-warmup"));
    assertTrue(refused("--sstable-disk", "hdd", "--warmup-ops", "1000").contains("--warmup-ops"));
  }

  @Test
  void badHddSettingsAreUsageErrors() {
    assertTrue(refused("--sstable-disk", "hdd", "--hdd-read-iops", "0").contains("iops"));
    assertTrue(refused("--sstable-disk", "hdd", "--hdd-write-bps", "1k").contains("bps"));
    assertTrue(refused("--sstable-disk", "hdd", "--hdd-image-size", "512MiB").contains("--hdd-image-size"));
    assertTrue(refused("--sstable-disk", "hdd", "--warmup-window", "1").contains("--warmup-window"));
    assertTrue(refused("--sstable-disk", "hdd", "--warmup-min-gain", "1.5").contains("--warmup-min-gain"));
    assertTrue(refused("--sstable-disk", "hdd", "--warmup-max", "0").contains("--warmup-max"));
    assertTrue(refused("--sstable-disk", "hdd", "--node-memory", "900M").contains("512 MiB"), "512M heap + 512 MiB");
    assertTrue(refused("--sstable-disk", "hdd", "--heap", "lots").contains("--heap"));
    assertTrue(refused("--providers", "ohc,redis").contains("--providers"));
    assertTrue(refused("--sstable-disk", "hdd", "--pairs", "0").contains("--pairs >= 1, was 0"));
    assertTrue(refused("--sstable-disk", "hdd", "--flash", "64MiB").contains("--flash 64 MiB is too small"),
        refused("--sstable-disk", "hdd", "--flash", "64MiB"));
    parse("--sstable-disk", "hdd", "--flash", "64MiB", "--providers", "ohc").validate(); // no flash tier: no limit
    assertTrue(refused("--sstable-disk", "hdd", "--warmup-plateau-windows", "0").contains("plateauWindows"));
  }

  @Test
  void pairsAndTheWarmupPlateauAreHddOptions() {
    String m = refused("--pairs", "2", "--warmup-plateau-windows", "4", "--cold-page-cache");
    assertTrue(m.contains("--pairs") && m.contains("--warmup-plateau-windows") && m.contains("--cold-page-cache"), m);
    CassandraCommand c = parse("--sstable-disk", "hdd", "--pairs", "5", "--flash", "1GiB");
    c.validate();
    assertEquals(5, c.pairs());
    assertEquals(1L << 30, c.flash());
    assertEquals(1, parse().pairs(), "ssd: one measured phase, alternating slices");
    assertEquals(1L << 30, parse().flash(), "ssd keeps its 1 GiB flash tier");
  }

  @Test
  void theCommandLineMapsThemToUsage() {
    assertEquals(BenchMain.USAGE, BenchMain.execute("cassandra", "--sstable-disk", "floppy"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("cassandra", "--sstable-disk", "hdd", "--hdd-read-iops", "-5"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("cassandra", "--hdd-write-iops", "100"));
  }
}
