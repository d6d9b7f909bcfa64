/**
 * The flash engine, package-private throughout (Caffeine's {@code BoundedLocalCache} style; CacheLib
 * navy's {@code block_cache/} folder): the cache ({@code Engine}) chaining the DRAM tier ({@code
 * DramTier}, Caffeine) over the flash tier ({@code FlashTier}: its maintenance thread, fault gate, opener and
 * recovery, key scan); segments and their table, writer and write buffers; the on-flash formats
 * ({@code EntryFormat}, {@code SegmentHeader}, {@code SegmentSummary}); the key-to-address indexes
 * ({@code HeapIndex}, {@code ChronicleIndex}, {@code IndexEntry}); reclaim ({@code Reclaimer}); lifetime
 * placement ({@code Placement}, the stream mappers, {@code HotnessTracker}); the stats' counters, JMX
 * bean and write trace.
 *
 * <p>The small-object engine (issue 27; Kangaroo, SOSP 2021; CacheLib navy's {@code bighash/}) sits beside
 * it under the name prefix {@code Small}, so its types stay package-private too: the set region ({@code
 * SmallSets}: {@code SmallSetPage}, {@code SmallSetBloom}, {@code SmallSetHits}, {@code SmallSetEviction},
 * {@code SmallSetCounters}) and the log in front of it ({@code SmallLog}). Not yet wired into the cache.
 *
 * <p>Two types are public: {@link io.hybridcache.core.engine.EngineProvider}, which the service loader
 * instantiates for {@link io.hybridcache.core.api.HybridCache#open}, and {@link
 * io.hybridcache.core.engine.RecordLog}, the small append-only log the schema catalogue persists
 * through. The engine depends on {@code api} and {@code device}, and knows nothing of the catalogue.
 */
package io.hybridcache.core.engine;
