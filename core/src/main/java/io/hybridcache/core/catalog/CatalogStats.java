package io.hybridcache.core.catalog;

import java.util.Map;

/**
 * A snapshot of a {@link SchemaCatalog}'s counters. Immutable.
 *
 * @param schemas live definitions (assigned, durable, not reclaimed)
 * @param nextId the id the next new schema gets; ids below it are never assigned again
 * @param assigned new ids handed out since open
 * @param reclaimed definitions reclaimed since open
 * @param fallbacks {@code idFor} calls that returned {@link SchemaCatalog#NO_ID} because their
 *     namespace was at its cap (the row is then written with inline names), since open
 * @param commits device syncs of the catalogue log since open (one per group commit, reclaim batch or
 *     compaction): fewer than {@code assigned} when concurrent assignments shared a sync
 * @param recordsWritten records appended to the log since open (definitions, reclaims, compaction copies)
 * @param compactions compactions of the log since open
 * @param segments catalogue segments in use
 * @param freeSegments free catalogue slots
 * @param corruptRecordsAtOpen records that failed their checksum when the catalogue was opened (torn by a
 *     crash or damaged); their ids do not resolve
 * @param namespaces per namespace: live schemas, cap, fallbacks
 */
public record CatalogStats(long schemas, long nextId, long assigned, long reclaimed, long fallbacks, long commits,
    long recordsWritten, long compactions, int segments, int freeSegments, long corruptRecordsAtOpen,
    Map<String, NamespaceStats> namespaces) {

  /**
   * One namespace.
   *
   * @param schemas live (and pending) definitions in the namespace
   * @param cap the namespace's cap on distinct schemas
   * @param fallbacks rows given inline names because the cap was reached, since open
   */
  public record NamespaceStats(long schemas, int cap, long fallbacks) {
    /** True when a new schema in this namespace would fall back to inline names. */
    public boolean capped() {
      return schemas >= cap;
    }
  }
}
