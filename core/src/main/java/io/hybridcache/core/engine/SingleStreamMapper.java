package io.hybridcache.core.engine;

import io.hybridcache.core.api.MapperKind;

/** Everything in stream 0: the baseline of a device without streams. Stateless and thread-safe. */
final class SingleStreamMapper implements StreamMapper {
  @Override
  public MapperKind kind() {
    return MapperKind.SINGLE;
  }

  @Override
  public int streams() {
    return 1;
  }

  @Override
  public int open(int classId, long clock) {
    return 0;
  }

  @Override
  public int streamOf(int classId) {
    return 0;
  }
}
