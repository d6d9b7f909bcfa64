package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.StoreSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * Chronicle Map persisted to a file ({@code chronicle-map.dat} in the settings' directory): a
 * store, it keeps every entry it accepted. Thread-safe (Chronicle Map locks per segment).
 *
 * <p>Budget: Chronicle Map has no DRAM knob. The file is memory-mapped, so the page cache is its
 * DRAM: what the kernel keeps of the file decides how many gets touch the disk, and the harness
 * bounds it with the memory cgroup. {@code dramBytes} is not used here; describe says so.
 *
 * <p>Sizing, as Chronicle's tutorial asks for variable-size entries: {@code entries} = the
 * expected entries, {@code averageKey} = a typical YCSB key ({@link PeerFiles#TYPICAL_KEY}),
 * {@code averageValueSize} = the average record size, and {@code maxBloatFactor} {@value
 * #MAX_BLOAT} so that more or larger records than announced go to extra segment tiers instead of
 * failing (extra tiers are added to the file only when needed). Everything else is the default (segment
 * count chosen by Chronicle). {@code putReturnsNull}: a put does not read back the old value;
 * a remove does, to tell whether the key was present.
 *
 * <p>Needs the FACTS.md JVM flags ({@code io.hybridcache.bench.ChildJvm#JVM_FLAGS}); loading this
 * class sets {@code chronicle.analytics.disable} and {@code chronicle.announcer.disable} unless
 * already set.
 */
public final class ChronicleMapStore extends ConcurrentMapStore {
  static {
    // First static member: before any Chronicle class is initialised (no analytics, no banner).
    System.getProperties().putIfAbsent("chronicle.analytics.disable", "true");
    System.getProperties().putIfAbsent("chronicle.announcer.disable", "true");
  }

  static final double MAX_BLOAT = 2.0;
  private final ChronicleMap<String, byte[]> map;
  private final StoreSettings settings;

  public ChronicleMapStore(StoreSettings s) {
    this(s, open(s, PeerFiles.fileIn(s.directory(), "chronicle-map.dat")));
  }

  private ChronicleMapStore(StoreSettings s, ChronicleMap<String, byte[]> map) {
    super(map);
    this.settings = s;
    this.map = map;
  }

  private static ChronicleMap<String, byte[]> open(StoreSettings s, Path file) {
    try {
      return ChronicleMap.of(String.class, byte[].class)
          .name("compare")
          .entries(s.expectedEntries())
          .averageKey(PeerFiles.TYPICAL_KEY)
          .averageValueSize(s.averageValueBytes())
          .maxBloatFactor(MAX_BLOAT)
          .putReturnsNull(true)
          .createPersistedTo(file.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create Chronicle Map file " + file, e);
    }
  }

  @Override
  public String describe() {
    return "chronicle-map: " + map.file() + " memory-mapped (page cache is its DRAM; dramBytes "
        + Sizes.format(settings.dramBytes()) + " unused), " + settings.expectedEntries() + " entries of ~"
        + PeerFiles.TYPICAL_KEY.length() + " B keys and ~" + settings.averageValueBytes() + " B values, max bloat "
        + MAX_BLOAT + ", " + map.segments() + " segments, off-heap " + Sizes.format(map.offHeapMemoryUsed());
  }

  @Override
  public void close() {
    map.close();
  }
}
