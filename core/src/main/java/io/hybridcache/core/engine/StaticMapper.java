package io.hybridcache.core.engine;

import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.MapperKind;
import java.util.HashMap;
import java.util.Map;

/**
 * One stream per lifetime class (the seeds' file-based mapping: one stream per file type). Built-in
 * classes take their id as ordinal (FRESH 0, SURVIVOR 1, CATALOG 2), caller-named classes the next
 * ordinals in the order they first open a segment; ordinal {@code o} gets stream
 * {@code streams - 1 - (o mod streams)}, so FRESH is the hottest stream and classes share streams only
 * past {@code streams} classes. Not thread-safe: under the segment writer's lock.
 */
final class StaticMapper implements StreamMapper {
  private final int streams;
  private final Map<Integer, Integer> ordinals = new HashMap<>();
  private int nextOrdinal = LifetimeClass.CATALOG.id() + 1;

  StaticMapper(int streams) {
    if (streams < 1) {
      throw new IllegalArgumentException("streams must be >= 1: " + streams);
    }
    this.streams = streams;
  }

  @Override
  public MapperKind kind() {
    return MapperKind.STATIC;
  }

  @Override
  public int streams() {
    return streams;
  }

  @Override
  public int open(int classId, long clock) {
    int o = ordinals.computeIfAbsent(classId, id -> id <= LifetimeClass.CATALOG.id() ? id : nextOrdinal++);
    return streams - 1 - (o % streams);
  }

  @Override
  public int streamOf(int classId) {
    Integer o = ordinals.get(classId);
    return o == null ? -1 : streams - 1 - (o % streams);
  }
}
