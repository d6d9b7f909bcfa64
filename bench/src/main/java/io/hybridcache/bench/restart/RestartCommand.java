package io.hybridcache.bench.restart;

import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.TextTable;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.Durability;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Warm restart of the compact index after kill -9, on real files:
 *
 * <ol>
 *   <li>a child JVM ({@link RestartLoader}, compact index, the chosen durability) loads {@code --entries}
 *       entries and is killed with SIGKILL once it has put {@code --kill-at} of them; then this JVM opens
 *       the directory (timed: the warm open after kill -9) and reads every key back, checking each value:
 *       the share of the flash entries the child reported last (at most 1,000 puts before the kill) that
 *       are still served (goal: 95% or more), and the index DRAM per flash entry;
 *   <li>the put path with and without checkpoints: {@code --ops} puts over the same key space (mostly
 *       overwrites of flash-resident keys, each journaled), durability {@code NONE} then {@code PROCESS}
 *       then {@code POWER}, ops/s each, with the journal file's size (its bound).
 * </ol>
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar restart [--entries N] [--kill-at F] [--ops N]}.
 * Timing figures need a quiet machine.
 */
@Command(name = "restart", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Warm restart after kill -9 (compact index): share served, open time, checkpoint cost."})
public final class RestartCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--dir", paramLabel = "DIR", description = "scratch directory (default: ${DEFAULT-VALUE})")
  Path dir = Path.of("target", "restart-data");

  @Option(names = "--entries", paramLabel = "N", description = "entries the child loads (default: ${DEFAULT-VALUE})")
  int entries = 1_000_000;

  @Option(names = "--value-bytes", paramLabel = "N", description = "value size (default: ${DEFAULT-VALUE})")
  int valueBytes = 100;

  @Option(names = "--kill-at", paramLabel = "F", description = "kill the child after this share of its puts "
      + "(default: ${DEFAULT-VALUE})")
  double killAt = 0.9;

  @Option(names = "--durability", paramLabel = "D", description = "durability of the killed child (default: "
      + "${DEFAULT-VALUE})")
  Durability durability = Durability.PROCESS;

  @Option(names = "--ops", paramLabel = "N", description = "puts per durability in the put-path phase, 0 = skip "
      + "(default: ${DEFAULT-VALUE})")
  int ops = 2_000_000;

  /** Sizes shared with the child. */
  record Sizes(Path dir, int entries, int valueBytes, Durability durability) {
    List<String> args() {
      return List.of(dir.toString(), Integer.toString(entries), Integer.toString(valueBytes), durability.name());
    }

    static Sizes parse(String[] a) {
      return new Sizes(Path.of(a[0]), Integer.parseInt(a[1]), Integer.parseInt(a[2]), Durability.valueOf(a[3]));
    }
  }

  /** The cache: compact index, 16 MiB of DRAM, flash for about twice the entries. */
  static CacheConfig config(Sizes s, Durability d) {
    long entryBytes = 40 + 12 + s.valueBytes() + 64;
    return CacheConfig.builder(s.dir())
        .name("restart")
        .indexType(IndexType.HEAP)
        .durability(d)
        .dramBytes(16 * CacheConfig.MIB)
        .flashBytes(Math.max(128 * CacheConfig.MIB, 2L * s.entries() * entryBytes / CacheConfig.MIB * CacheConfig.MIB))
        .segmentBytes((int) (16 * CacheConfig.MIB))
        .expectedEntries(Math.max(16_384, 2L * s.entries()))
        .jmx(false)
        .build();
  }

  static byte[] key(int i) {
    return ("key-" + i).getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] value(int i, int length) {
    byte[] v = new byte[Math.max(8, length)];
    ByteBuffer.wrap(v).putInt(i).putInt(~i);
    for (int j = 8; j < v.length; j++) {
      v[j] = (byte) (i * 31 + j);
    }
    return v;
  }

  @Override
  public Integer call() throws Exception {
    if (entries < 1000 || valueBytes < 8 || killAt <= 0 || killAt > 1 || ops < 0) {
      throw new ParameterException(spec.commandLine(),
          "--entries >= 1000, --value-bytes >= 8, --kill-at in (0, 1], --ops >= 0");
    }
    Path root = BenchDirs.prepare(dir);
    TextTable table = new TextTable("phase", "figure", "value");
    boolean ok = killAndReopen(new Sizes(root.resolve("killed"), entries, valueBytes, durability), table);
    if (ops > 0) {
      for (Durability d : Durability.values()) {
        putPath(new Sizes(root.resolve("puts-" + d.name().toLowerCase()), entries, valueBytes, d), table);
      }
    }
    table.print(System.out);
    return ok ? BenchMain.OK : BenchMain.FAILED;
  }

  private boolean killAndReopen(Sizes s, TextTable table) throws Exception {
    List<String> cmd = ChildJvm.javaCommand(List.of("-Xmx1g"), RestartLoader.class.getName(), s.args());
    Process child = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    long killAfter = (long) Math.ceil(killAt * entries);
    long puts = 0;
    long flashAtKill = 0;
    try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
      for (String line; (line = in.readLine()) != null; ) {
        String[] f = line.split(" ");
        if (f[0].equals("F")) {
          puts = Long.parseLong(f[1]);
          flashAtKill = Long.parseLong(f[2]);
        }
        if (puts >= killAfter || f[0].equals("D")) {
          break;
        }
      }
      child.toHandle().destroyForcibly(); // SIGKILL
      child.waitFor(60, TimeUnit.SECONDS);
    }
    long t0 = System.nanoTime();
    long served = 0;
    long wrong = 0;
    CacheStats opened;
    try (HybridCache cache = HybridCache.open(config(s, s.durability()))) {
      long openNanos = System.nanoTime() - t0;
      opened = cache.stats();
      for (int i = 0; i < puts; i++) {
        byte[] v = cache.get(key(i));
        if (v != null) {
          served++;
          wrong += Arrays.equals(v, value(i, valueBytes)) ? 0 : 1;
        }
      }
      table.row("kill -9", "puts acknowledged before the kill", puts);
      table.row("kill -9", "flash entries at the last report", flashAtKill);
      table.row("kill -9", "flash entries after the warm open", opened.flashEntries());
      table.row("kill -9", "open after kill -9, ms", String.format("%.1f", openNanos / 1e6));
      table.row("kill -9", "entries served after the open", served);
      table.row("kill -9", "share of flash entries served",
          flashAtKill == 0 ? "n/a" : String.format("%.4f", (double) served / flashAtKill));
      table.row("kill -9", "wrong values served", wrong);
      table.row("kill -9", "index DRAM per flash entry, B", opened.flashEntries() == 0 ? "n/a"
          : String.format("%.1f", (double) opened.indexMemoryBytes() / opened.flashEntries()));
      table.row("kill -9", "journal file, bytes", Files.size(s.dir().resolve("index.journal")));
    }
    return wrong == 0;
  }

  /** {@code ops} puts over the key space (the first pass inserts, the rest overwrite): ops/s. */
  private void putPath(Sizes s, TextTable table) throws Exception {
    byte[][] values = new byte[64][];
    for (int i = 0; i < values.length; i++) {
      values[i] = value(i, valueBytes);
    }
    try (HybridCache cache = HybridCache.open(config(s, s.durability()))) {
      long t0 = System.nanoTime();
      ThreadLocalRandom rnd = ThreadLocalRandom.current();
      for (int n = 0; n < ops; n++) {
        int k = n < entries ? n : rnd.nextInt(entries);
        cache.put(key(k), values[n & 63]);
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      CacheStats st = cache.stats();
      String d = "puts, durability " + s.durability();
      table.row(d, "ops/s", String.format("%.0f", ops / seconds));
      table.row(d, "flash entries, index DRAM per entry B", st.flashEntries() + ", "
          + (st.flashEntries() == 0 ? "n/a" : String.format("%.1f", (double) st.indexMemoryBytes() / st.flashEntries())));
      Path journal = s.dir().resolve("index.journal");
      table.row(d, "journal file, bytes", Files.exists(journal) ? Files.size(journal) : 0);
    }
  }
}
