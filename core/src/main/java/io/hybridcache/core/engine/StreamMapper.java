package io.hybridcache.core.engine;

import io.hybridcache.core.api.MapperKind;

/**
 * Maps lifetime classes to a bounded number of device streams (seeds: multi-stream SSD, DSM,
 * FileStream). Not thread-safe: used under the segment writer's lock, whose holder tells it about segments
 * opening and reclaimed and, once per epoch, hands it the hotness figures of every class.
 *
 * <p>A stream is chosen when a segment opens and stays with it (a device places later writes by the
 * new hint only; data written stays where it is). Stream ids count from 0 (coldest) up to
 * {@code streams() - 1} (hottest) in every mapper, so {@link WriteLifeHints} can turn them into
 * write-life hints.
 *
 * <p>Time is the device's: the clock is bytes written to the device by the cache, the natural clock
 * of a write-driven device (and independent of how fast a benchmark runs).
 */
interface StreamMapper {
  MapperKind kind();

  /** Streams this mapper uses, at most. */
  int streams();

  /** The stream of a segment of {@code classId} opening (or resuming) at {@code clock}. */
  int open(int classId, long clock);

  /** The class wrote {@code bytes} to the device (every write, so mappers can measure write rates). */
  default void written(int classId, long bytes) {}

  /** A segment of {@code classId} opened at {@code openedAt} was reclaimed at {@code clock}. */
  default void reclaimed(int classId, long openedAt, long clock) {}

  /** End of an epoch: re-map from the classes' figures. */
  default void epoch(EpochSample sample) {}

  /** The stream a new segment of {@code classId} would get now, or -1 for a class never seen. */
  int streamOf(int classId);

  /** Epochs in which at least one class changed stream; may be read from any thread (stats). */
  default long remaps() {
    return 0;
  }

  /** A new mapper of {@code kind} with the given parameters. */
  static StreamMapper create(MapperKind kind, int streams, int dsmGroups, int dsmAlpha, long epochBytes) {
    return switch (kind) {
      case SINGLE -> new SingleStreamMapper();
      case STATIC -> new StaticMapper(streams);
      case DSM -> new DsmMapper(streams, dsmGroups, dsmAlpha);
      case FILESTREAM -> new FileStreamMapper(streams, epochBytes, 42L);
    };
  }
}
