package io.hybridcache.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchMainTest {
  @Test
  void exitCodes() {
    assertEquals(BenchMain.OK, BenchMain.execute("--help"));
    assertEquals(BenchMain.OK, BenchMain.execute("ycsb", "--help"));
    assertEquals(BenchMain.OK, BenchMain.execute("limits", "--help"));
    assertEquals(BenchMain.USAGE, BenchMain.execute());
    assertEquals(BenchMain.USAGE, BenchMain.execute("nosuchcommand"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("ycsb", "--threads", "many"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("ycsb", "--dram", "lots"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("ycsb", "--workload", "target/no/such/workload"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("limits", "--fio-only", "--cache-only"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("limits", "--small-objects", "--small-object-share", "0.95"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("limits", "--small-objects", "--small-value-size", "4"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("limits", "--small-objects", "--small-flash", "lots"));
    assertEquals(BenchMain.OK, BenchMain.execute("catalog", "--help"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("catalog", "--rows", "0"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("ycsb", "--codec", "zip"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("ycsb", "--workload", "../src/workloads/tiny100", "--preload", "--db", "mongo"),
        "--preload without the cache binding");
    assertEquals(BenchMain.USAGE, BenchMain.execute("jmh", "-f", "notanumber"));
    assertEquals(BenchMain.OK, BenchMain.execute("jmh", "-l"));
    assertEquals(BenchMain.OK, BenchMain.execute("mongo", "--help"));
    assertEquals(BenchMain.OK, BenchMain.execute("placement", "--help"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("placement", "--utilization", "1.5", "--trace", "x.csv"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("placement", "--victim", "lru", "--trace", "x.csv"));
  }

  /**
   * Every subcommand's help renders as written: picocli formats option descriptions as format strings, so a bare
   * {@code %} (e.g. "60% of") makes it print a WARN to standard error and show the raw text.
   */
  @Test
  void everySubcommandsHelpRendersWithoutAFormatWarning() {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      for (Map.Entry<String, CommandLine> sub : BenchMain.commandLine().getSubcommands().entrySet()) {
        String usage = sub.getValue().getUsageMessage();
        String warned = captured.toString(StandardCharsets.UTF_8);
        assertFalse(warned.contains("picocli WARN"), sub.getKey() + "'s help: " + warned);
        assertFalse(usage.isEmpty(), sub.getKey());
      }
    } finally {
      System.setErr(err);
    }
  }
}
