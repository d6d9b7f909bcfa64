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
    assertEquals(3_000_000, c.records());
    assertEquals(240, c.seconds());
    assertEquals("512M", c.heap());
    long memory = io.hybridcache.bench.Sizes.parse(c.nodeMemory());
    assertTrue(c.records() * CassandraCommand.RECORD_BYTES > 2.5 * memory);
    assertEquals(new EmulatedHdd.Throttle(180, 180, 150L << 20, 150L << 20), c.throttle());
    assertEquals(Math.max(2L << 30, 3 * c.records() * CassandraCommand.RECORD_BYTES), c.imageBytes());
    assertEquals(60, c.warmupWindow());
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
  }

  @Test
  void theCommandLineMapsThemToUsage() {
    assertEquals(BenchMain.USAGE, BenchMain.execute("cassandra", "--sstable-disk", "floppy"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("cassandra", "--sstable-disk", "hdd", "--hdd-read-iops", "-5"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("cassandra", "--hdd-write-iops", "100"));
  }
}
