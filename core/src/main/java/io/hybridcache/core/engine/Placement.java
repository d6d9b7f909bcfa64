package io.hybridcache.core.engine;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.MapperKind;
import io.hybridcache.core.api.PlacementStats;
import io.hybridcache.core.device.Device;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * Lifetime placement of the flash tier: gives every segment a device stream when it opens, passes the
 * stream to the device as a write-life hint on the segment's file, measures hotness per class and
 * re-maps at every epoch (seeds: multi-stream SSD, DSM, FileStream).
 *
 * <p>Thread-safety: {@link #opened}, {@link #written} and {@link #reclaimed} run under the segment writer's
 * lock (evicting threads and the maintenance thread take it; one at a time opens and writes segments),
 * as do the mappers. {@link #invalidated}
 * may be called from any thread ({@link HotnessTracker}); {@link #stats} from any thread (atomics and
 * a concurrent map).
 *
 * <p>Time: the epoch clock is device bytes written by the cache ({@code epochBytes} per epoch), so a
 * replayed trace and a slow benchmark see the same epochs.
 *
 * <p>Trace: when the write trace is on, every kind of mapper runs side by side on the same events (the
 * cache's behaviour does not depend on streams, only the hints do), so one run's trace tells what
 * each mapper would have chosen for every segment ({@link #tracedStreams()}).
 */
final class Placement {
  private final Device device;
  private final SegmentTable table;
  private final LifetimeClasses classes;
  private final StreamMapper mapper;
  /** Every mapper kind in {@link MapperKind} order (the configured one among them), or empty. */
  private final List<StreamMapper> all;
  private final long epochBytes;
  private final HotnessTracker tracker = new HotnessTracker();

  // under the segment writer's lock
  private long clock;
  private long epochStart;
  private final Map<Integer, Long> writtenInEpoch = new HashMap<>();
  private final Map<Long, Long> openedAt = new HashMap<>();
  private String lastTraced;
  private Consumer<EpochSample> epochListener = e -> {};

  // any thread
  private final AtomicLongArray bytesPerStream;
  private final ConcurrentHashMap<Integer, ClassState> perClass = new ConcurrentHashMap<>();
  private final AtomicLong epochs = new AtomicLong();
  private final AtomicLong hintsSet = new AtomicLong();
  private final AtomicLong hintsRefused = new AtomicLong();

  /** Figures of one class for {@link #stats}: written under the segment writer's lock, read by any. */
  private static final class ClassState {
    final AtomicLong written = new AtomicLong();
    volatile int stream = -1;
    volatile double hotnessYoung = Double.NaN;
    volatile double hotnessOld = Double.NaN;
    volatile double usm;
  }

  /**
   * @param traceAll run every mapper kind side by side for the write trace
   */
  public Placement(Device device, SegmentTable table, LifetimeClasses classes, MapperKind kind, int streams,
      int dsmGroups, int dsmAlpha, long epochBytes, boolean traceAll) {
    this.device = device;
    this.table = table;
    this.classes = classes;
    this.epochBytes = epochBytes;
    this.mapper = StreamMapper.create(kind, streams, dsmGroups, dsmAlpha, epochBytes);
    List<StreamMapper> list = new ArrayList<>();
    if (traceAll) {
      for (MapperKind k : MapperKind.values()) {
        list.add(k == kind ? mapper : StreamMapper.create(k, streams, dsmGroups, dsmAlpha, epochBytes));
      }
    }
    this.all = List.copyOf(list);
    this.bytesPerStream = new AtomicLongArray(Math.max(1, mapper.streams()));
  }

  public StreamMapper mapper() {
    return mapper;
  }

  public HotnessTracker tracker() {
    return tracker;
  }

  /** Called under the segment writer's lock with every epoch's figures, after the mappers (the write trace). */
  public void onEpoch(Consumer<EpochSample> listener) {
    this.epochListener = listener;
  }

  // ---- under the segment writer's lock ----

  /**
   * {@code s} opened (or resumed after a restart): its stream, which the device gets as a write-life
   * hint on the segment's slot (except with the single mapper, which leaves the device's default).
   */
  public int opened(Segment s) {
    int c = s.lifetimeClass().id();
    int stream = mapper.open(c, clock);
    if (all.isEmpty()) {
      lastTraced = null;
    } else {
      StringBuilder sb = new StringBuilder();
      for (StreamMapper m : all) {
        int st = m == mapper ? stream : m.open(c, clock);
        sb.append(sb.length() == 0 ? "" : ";").append(m.kind().label()).append(':').append(st);
      }
      lastTraced = sb.toString();
    }
    openedAt.put(s.id(), clock);
    state(c).stream = stream;
    if (mapper.kind() != MapperKind.SINGLE) {
      if (device.setWriteLifeHint(s.slot(), WriteLifeHints.forStream(stream, mapper.streams()))) {
        hintsSet.incrementAndGet();
      } else {
        hintsRefused.incrementAndGet();
      }
    }
    return stream;
  }

  /** The streams every mapper chose for the segment {@link #opened} last ("single:0;static:7;..."), or null. */
  public String tracedStreams() {
    return lastTraced;
  }

  /** {@code bytes} of class {@code c} went to the device in {@code stream}; may end an epoch. */
  public void written(LifetimeClass c, int stream, long bytes) {
    clock += bytes;
    bytesPerStream.addAndGet(stream, bytes);
    state(c.id()).written.addAndGet(bytes);
    writtenInEpoch.merge(c.id(), bytes, Long::sum);
    mapper.written(c.id(), bytes);
    for (StreamMapper m : all) {
      if (m != mapper) {
        m.written(c.id(), bytes);
      }
    }
    if (clock - epochStart >= epochBytes) {
      endEpoch();
    }
  }

  /** Reclaim emptied {@code s}: its lifetime (open to reclaim) is history for the mappers. */
  public void reclaimed(Segment s) {
    Long at = openedAt.remove(s.id());
    if (at == null) {
      return; // opened before this open of the cache
    }
    mapper.reclaimed(s.lifetimeClass().id(), at, clock);
    for (StreamMapper m : all) {
      if (m != mapper) {
        m.reclaimed(s.lifetimeClass().id(), at, clock);
      }
    }
  }

  // ---- any thread ----

  /** {@code bytes} of an entry in {@code s} stopped being live. */
  public void invalidated(Segment s, long bytes) {
    tracker.invalidated(s, bytes);
  }

  public PlacementStats stats() {
    List<PlacementStats.ClassPlacement> list = new ArrayList<>();
    for (Map.Entry<Integer, ClassState> e : new TreeMap<>(perClass).entrySet()) {
      ClassState st = e.getValue();
      list.add(new PlacementStats.ClassPlacement(e.getKey(), classes.byId(e.getKey()).name(), st.stream,
          st.written.get(), st.hotnessYoung, st.hotnessOld, st.usm));
    }
    List<Long> bytes = new ArrayList<>();
    for (int i = 0; i < bytesPerStream.length(); i++) {
      bytes.add(bytesPerStream.get(i));
    }
    return new PlacementStats(mapper.kind().label(), mapper.streams(), epochs.get(), mapper.remaps(),
        hintsSet.get(), hintsRefused.get(), list, bytes);
  }

  private ClassState state(int classId) {
    return perClass.computeIfAbsent(classId, id -> new ClassState());
  }

  private void endEpoch() {
    long length = clock - epochStart;
    Map<Integer, long[]> footprint = new TreeMap<>(); // class -> {young, old}
    for (Segment s : table.segments()) {
      long[] f = footprint.computeIfAbsent(s.lifetimeClass().id(), id -> new long[2]);
      f[tracker.young(s) ? 0 : 1] += s.writtenBytes();
    }
    for (int id : tracker.classIds()) {
      footprint.computeIfAbsent(id, i -> new long[2]);
    }
    writtenInEpoch.keySet().forEach(id -> footprint.computeIfAbsent(id, i -> new long[2]));
    List<EpochSample.ClassSample> samples = new ArrayList<>();
    for (Map.Entry<Integer, long[]> e : footprint.entrySet()) {
      int id = e.getKey();
      long[] inv = tracker.drain(id);
      long[] f = e.getValue();
      EpochSample.ClassSample cs = new EpochSample.ClassSample(id, classes.byId(id).name(),
          writtenInEpoch.getOrDefault(id, 0L), inv[0], inv[1], f[0], f[1]);
      samples.add(cs);
      ClassState st = state(id);
      st.hotnessYoung = EpochSample.hotness(cs.invalidatedYoung(), cs.footprintYoung(), length);
      st.hotnessOld = EpochSample.hotness(cs.invalidatedOld(), cs.footprintOld(), length);
      st.usm = cs.invalidationPerByte();
    }
    EpochSample sample = new EpochSample(epochs.get() + 1, clock, length, samples);
    mapper.epoch(sample);
    for (StreamMapper m : all) {
      if (m != mapper) {
        m.epoch(sample);
      }
    }
    for (Map.Entry<Integer, ClassState> e : perClass.entrySet()) {
      int s = mapper.streamOf(e.getKey());
      if (s >= 0) {
        e.getValue().stream = s;
      }
    }
    epochListener.accept(sample);
    tracker.startEpoch(table.nextSegmentIdPeek());
    writtenInEpoch.clear();
    epochStart = clock;
    epochs.incrementAndGet();
  }
}
