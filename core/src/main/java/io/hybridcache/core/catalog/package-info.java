/**
 * The dynamic schema catalogue (CaSSanDra paper, section V): {@link
 * io.hybridcache.core.catalog.SchemaCatalog} maps schema ids to column-name lists and persists them in
 * the engine's {@link io.hybridcache.core.engine.RecordLog}; {@link io.hybridcache.core.catalog.Row}
 * and {@link io.hybridcache.core.catalog.RowCodec} encode rows as a schema id plus values. Depends on
 * {@code api}, {@code device} and the engine's published log; the engine does not depend on it.
 */
package io.hybridcache.core.catalog;
