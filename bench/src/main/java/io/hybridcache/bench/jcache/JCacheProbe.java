package io.hybridcache.bench.jcache;

import io.hybridcache.bench.ChildJvm;
import io.hybridcache.bench.TextTable;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.EventType;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Drives every JSR-107 provider on the class path through the same probes and reports what each did, so
 * the comparison table of {@code src/site/jcache.md} is a run, not a reading of documentation:
 * <ol>
 *   <li>store-by-value: a plain {@code MutableConfiguration} (store-by-value is its default); a list is put,
 *       then changed by the caller; the value got must be the list as put, and changing what a get returned
 *       must not change the next get's;
 *   <li>listeners: a synchronous created/updated/removed listener on a plain configuration hears a put, a
 *       second put and a remove of one key;
 *   <li>management: a plain configuration with statistics and management enabled; after one put and one hit,
 *       the platform MBean server must have its {@code javax.cache:type=CacheStatistics} MXBean with
 *       {@code CacheHits} 1, and its {@code CacheConfiguration} MXBean;
 *   <li>beyond the heap: a cache configured the provider's own way ({@link ProbeSubject#boundedManager})
 *       for a heap budget of about {@link #HEAP_ENTRIES} values gets {@link #ENTRIES} values of 1 KiB
 *       (10x that); how many read back correct;
 *   <li>warm restart: the manager is closed, opened again on the same directory with the same configuration,
 *       and its cache read: how many of the {@link #ENTRIES} values come back correct;
 *   <li>warm restart after kill -9: a child JVM ({@link KillChild}) puts the same values into the bounded cache
 *       on a fresh directory and is killed with SIGKILL once every put returned; then as above.
 * </ol>
 * Not thread-safe; one run at a time per directory.
 */
public final class JCacheProbe {
  static final int HEAP_ENTRIES = 500;
  static final int ENTRIES = 5_000;
  static final String BOUNDED = "bounded";
  static final int VALUE_CHARS = 1_024;

  /** The rows of the table. */
  static final List<String> ROWS = List.of("store-by-value (change after put, change after get)",
      "listeners (sync: created, updated, removed)", "statistics + configuration MXBeans (platform server)",
      "entries beyond the heap budget read back", "warm restart (close, reopen, read)",
      "warm restart after kill -9 (child JVM puts, is killed; reopen, read)");

  /** One provider's cells, in the order of {@link #ROWS}; {@code beyondHeap} and {@code afterRestart} as counts. */
  record Column(String provider, boolean storeByValue, List<EventType> heard, boolean statisticsMXBean,
      boolean configurationMXBean, int beyondHeap, int afterRestart, int afterKill, String boundedConfiguration) {
    List<String> cells() {
      return List.of(storeByValue ? "yes" : "no (caller's changes seen)",
          heard.equals(List.of(EventType.CREATED, EventType.UPDATED, EventType.REMOVED)) ? "yes" : "no: heard " + heard,
          statisticsMXBean && configurationMXBean ? "yes" : "no: statistics " + statisticsMXBean
              + ", configuration " + configurationMXBean,
          beyondHeap + " of " + ENTRIES, afterRestart + " of " + ENTRIES, afterKill + " of " + ENTRIES);
    }
  }

  private JCacheProbe() {}

  /** The four providers this module has on its class path. */
  static List<ProbeSubject> subjects() {
    return List.of(new HybridSubject(), new EhcacheSubject(), new CaffeineSubject(), new InfinispanSubject());
  }

  /** The subject whose class's simple name is {@code simpleName}. */
  static ProbeSubject subject(String simpleName) {
    return subjects().stream().filter(s -> s.getClass().getSimpleName().equals(simpleName)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no probe subject " + simpleName));
  }

  /** Runs every probe on {@code subject}, its files under {@code dir}. */
  static Column run(ProbeSubject subject, Path dir) throws Exception {
    boolean byValue;
    List<EventType> heard;
    boolean[] mxbeans;
    String prefix = "probe" + Long.toHexString(System.nanoTime()); // cache names unique in this JVM
    try (CacheManager plain = subject.plainManager(dir.resolve("plain"))) {
      byValue = storeByValue(plain, prefix + "value");
      heard = listeners(plain, prefix + "listened");
      mxbeans = mxbeans(plain, prefix + "managed");
    }
    int beyondHeap;
    Path bounded = dir.resolve("bounded");
    try (CacheManager manager = subject.boundedManager(bounded)) {
      Cache<Integer, String> cache = subject.boundedCache(manager);
      for (int i = 0; i < ENTRIES; i++) {
        cache.put(i, value(i));
      }
      beyondHeap = readBack(cache);
    }
    int afterRestart;
    try (CacheManager manager = subject.boundedManager(bounded)) {
      afterRestart = readBack(subject.boundedCache(manager));
    }
    int afterKill = afterKill(subject, dir.resolve("killed"));
    return new Column(subject.name(), byValue, heard, mxbeans[0], mxbeans[1], beyondHeap, afterRestart, afterKill,
        subject.boundedConfiguration());
  }

  /** The kill probe: a {@link KillChild} writes on {@code dir} and is SIGKILLed; how many values read back. */
  private static int afterKill(ProbeSubject subject, Path dir) throws Exception {
    List<String> command = ChildJvm.javaCommand(List.of("-Xmx256m"), KillChild.class.getName(),
        List.of(subject.getClass().getSimpleName(), dir.toString()));
    boolean[] written = new boolean[1];
    ChildJvm.Result r = ChildJvm.run(command, "[" + subject.name() + " child] ", System.err, line -> {
      if (line.startsWith("written ")) {
        written[0] = true;
        ProcessHandle.of(Long.parseLong(line.substring("written ".length()))).ifPresent(ProcessHandle::destroyForcibly);
      }
    }, null);
    if (!written[0] || r.exitCode() != 137) {
      throw new IllegalStateException(subject.name() + ": the kill probe's child ended with " + r.exitCode()
          + (written[0] ? "" : " before writing") + ": " + String.join("\n", r.stderrTail()));
    }
    try (CacheManager manager = subject.boundedManager(dir)) {
      return readBack(subject.boundedCache(manager));
    }
  }

  static String value(int i) {
    StringBuilder b = new StringBuilder(VALUE_CHARS).append(i).append(':');
    while (b.length() < VALUE_CHARS) {
      b.append((char) ('a' + (i + b.length()) % 26));
    }
    return b.toString();
  }

  private static int readBack(Cache<Integer, String> cache) {
    int correct = 0;
    for (int i = 0; i < ENTRIES; i++) {
      correct += value(i).equals(cache.get(i)) ? 1 : 0;
    }
    return correct;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static boolean storeByValue(CacheManager manager, String name) {
    Cache<String, ArrayList> cache = manager.createCache(name,
        new MutableConfiguration<String, ArrayList>().setTypes(String.class, ArrayList.class));
    ArrayList<String> list = new ArrayList<>(List.of("as put"));
    cache.put("k", list);
    list.add("changed after put");
    ArrayList<String> got = cache.get("k");
    boolean putCopied = List.of("as put").equals(got);
    got.add("changed after get");
    boolean getCopied = List.of("as put").equals(cache.get("k"));
    return putCopied && getCopied;
  }

  private static List<EventType> listeners(CacheManager manager, String name) {
    ProbeListener listener = new ProbeListener();
    MutableConfiguration<String, String> config = new MutableConfiguration<String, String>()
        .setTypes(String.class, String.class)
        .addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
            FactoryBuilder.factoryOf(listener), null, false, true));
    Cache<String, String> cache = manager.createCache(name, config);
    cache.put("k", "v1");
    cache.put("k", "v2");
    cache.remove("k");
    return List.copyOf(listener.heard());
  }

  /** {statistics MXBean with CacheHits 1, configuration MXBean}, on the platform MBean server. */
  private static boolean[] mxbeans(CacheManager manager, String name) throws Exception {
    Cache<String, String> cache = manager.createCache(name, new MutableConfiguration<String, String>()
        .setTypes(String.class, String.class).setStatisticsEnabled(true).setManagementEnabled(true));
    cache.put("k", "v");
    cache.get("k");
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName statistics = find(server, "CacheStatistics", name);
    boolean hits = statistics != null && ((Number) server.getAttribute(statistics, "CacheHits")).longValue() == 1;
    return new boolean[] {hits, find(server, "CacheConfiguration", name) != null};
  }

  private static ObjectName find(MBeanServer server, String type, String cacheName) throws Exception {
    Set<ObjectName> names = server.queryNames(new ObjectName("javax.cache:type=" + type + ",*"), null);
    for (ObjectName n : names) {
      String cache = n.getKeyProperty("Cache");
      if (cache != null && (cache.equals(cacheName) || cache.equals(ObjectName.quote(cacheName)))) {
        return n;
      }
    }
    return null;
  }

  /** Prints the table: a row per probe, a column per provider, then each column's bounded configuration. */
  static void print(List<Column> columns, PrintStream out) {
    String[] header = new String[columns.size() + 1];
    header[0] = "probe";
    for (int i = 0; i < columns.size(); i++) {
      header[i + 1] = columns.get(i).provider();
    }
    TextTable table = new TextTable(header);
    for (int r = 0; r < ROWS.size(); r++) {
      Object[] cells = new Object[columns.size() + 1];
      cells[0] = ROWS.get(r);
      for (int c = 0; c < columns.size(); c++) {
        cells[c + 1] = columns.get(c).cells().get(r);
      }
      table.row(cells);
    }
    table.print(out);
    out.printf("(%d values of %d chars; heap budget about %d values)%n", ENTRIES, VALUE_CHARS, HEAP_ENTRIES);
    for (Column c : columns) {
      out.println(c.provider() + ": " + c.boundedConfiguration());
    }
  }
}
