/**
 * hybridcache core: a DRAM tier (Caffeine) chained over a segmented flash tier, and the schema
 * catalogue. Callers use {@code io.hybridcache.core.api} (and the catalogue, {@code device} to
 * name a device, {@code metrics} to publish a cache's figures to Micrometer); the engine package
 * stays internal and is reached through the {@link io.hybridcache.core.api.CacheProvider} service. On the class path (how Cassandra and most
 * applications load it) this descriptor is ignored and the same packages are used.
 */
module io.hybridcache.core {
  requires com.github.benmanes.caffeine;
  requires com.sun.jna;
  requires java.management;
  requires jdk.unsupported; // com.sun.nio.file.ExtendedOpenOption.DIRECT
  requires org.slf4j;
  requires hash4j;
  requires static chronicle.map; // only for IndexType.CHRONICLE
  requires static micrometer.core; // only for io.hybridcache.core.metrics (an optional dependency)

  exports io.hybridcache.core.api;
  exports io.hybridcache.core.catalog;
  exports io.hybridcache.core.device;
  exports io.hybridcache.core.metrics;

  uses io.hybridcache.core.api.CacheProvider;

  provides io.hybridcache.core.api.CacheProvider with io.hybridcache.core.engine.EngineProvider;
}
