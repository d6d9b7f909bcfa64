package io.hybridcache.core.metrics;

import io.hybridcache.core.api.CacheStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.function.ToDoubleFunction;

/**
 * Registers meters that each read one figure of a {@link StatsSnapshot}: function counters for the
 * cumulative counters, gauges for the figures as of the snapshot. Every meter carries the binder's tags
 * ({@code cache=NAME} and the caller's) plus its own, and holds {@code source} weakly (Micrometer's
 * default), as Micrometer's own cache binders do. Thread-safe once built (immutable).
 *
 * @param <T> what the meters hold and the snapshot reads
 */
final class StatsMeters<T> {
  private final T source;
  private final StatsSnapshot<T> snapshot;
  private final Tags tags;

  StatsMeters(T source, StatsSnapshot<T> snapshot, Tags tags) {
    this.source = source;
    this.snapshot = snapshot;
    this.tags = tags;
  }

  /** A function counter {@code name} reading {@code figure}; {@code unit} may be null. */
  void counter(MeterRegistry registry, String name, String description, String unit,
      ToDoubleFunction<CacheStats> figure, String... extraTags) {
    StatsSnapshot<T> snap = snapshot;
    FunctionCounter.builder(name, source, s -> figure.applyAsDouble(snap.of(s)))
        .tags(tags).tags(extraTags).description(description).baseUnit(unit).register(registry);
  }

  /** A gauge {@code name} reading {@code figure}; {@code unit} may be null. */
  void gauge(MeterRegistry registry, String name, String description, String unit,
      ToDoubleFunction<CacheStats> figure, String... extraTags) {
    StatsSnapshot<T> snap = snapshot;
    Gauge.builder(name, source, s -> figure.applyAsDouble(snap.of(s)))
        .tags(tags).tags(extraTags).description(description).baseUnit(unit).register(registry);
  }
}
