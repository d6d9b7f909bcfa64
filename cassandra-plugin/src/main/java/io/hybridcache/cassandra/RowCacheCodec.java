package io.hybridcache.cassandra;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.function.IntSupplier;
import org.apache.cassandra.cache.RowCacheKey;
import org.apache.cassandra.db.partitions.CachedPartition;
import org.apache.cassandra.io.util.DataInputBuffer;
import org.apache.cassandra.io.util.DataOutputBuffer;
import org.apache.cassandra.schema.TableId;

/**
 * Row cache keys and partitions as the byte arrays the hybrid cache stores. Thread-safe: stateless
 * apart from the suppliers it is given.
 *
 * <p>Key format: table id (16 bytes: UUID most, then least significant), index name length (2 bytes,
 * unsigned; 0 = no index) and its UTF-8 bytes, then the partition key bytes.
 *
 * <p>Value format: format byte ({@value #FORMAT}), messaging version (4 bytes, the version
 * {@code CachedPartition.cacheSerializer} wrote with), table id (16 bytes), write epoch (8 bytes at
 * {@link #EPOCH_OFFSET}: the {@link InvalidationRecords} clock when the partition was read, set by
 * {@link #stamp}), then the serializer's bytes. Format 1 (no epoch) decodes to null.
 * A value of another format, another messaging version (an upgrade, a storage compatibility mode
 * change), another table, or of a table that no longer exists decodes to null: a cache miss, never an
 * error to the client. Bump {@link #FORMAT} on any change of this layout.
 */
final class RowCacheCodec {
  static final byte FORMAT = 2;
  static final int EPOCH_OFFSET = 1 + 4 + 16;
  private static final int VALUE_HEADER = EPOCH_OFFSET + 8;

  private final IntSupplier messagingVersion;

  /**
   * @param messagingVersion {@code MessagingService.current_version} on a node
   */
  RowCacheCodec(IntSupplier messagingVersion) {
    this.messagingVersion = messagingVersion;
  }

  byte[] key(RowCacheKey k) {
    byte[] index = k.indexName == null ? new byte[0] : k.indexName.getBytes(StandardCharsets.UTF_8);
    UUID id = k.tableId.asUUID();
    return ByteBuffer.allocate(16 + 2 + index.length + k.key.length)
        .putLong(id.getMostSignificantBits())
        .putLong(id.getLeastSignificantBits())
        .putShort((short) index.length)
        .put(index)
        .put(k.key)
        .array();
  }

  RowCacheKey key(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    TableId id = TableId.fromUUID(new UUID(b.getLong(), b.getLong()));
    int indexLength = Short.toUnsignedInt(b.getShort());
    String index = indexLength == 0 ? null : new String(bytes, 18, indexLength, StandardCharsets.UTF_8);
    byte[] key = new byte[bytes.length - 18 - indexLength];
    b.position(18 + indexLength).get(key);
    return new RowCacheKey(id, index, key);
  }

  byte[] value(CachedPartition p) {
    UUID id = p.metadata().id.asUUID();
    try (DataOutputBuffer out = new DataOutputBuffer(VALUE_HEADER + 256)) {
      out.writeByte(FORMAT);
      out.writeInt(messagingVersion.getAsInt());
      out.writeLong(id.getMostSignificantBits());
      out.writeLong(id.getLeastSignificantBits());
      out.writeLong(0); // the epoch: stamp()ed when the value is stored
      CachedPartition.cacheSerializer.serialize(p, out);
      return out.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException("cannot serialize a cached partition", e); // in-memory buffer: not expected
    }
  }

  /** Sets the write epoch of an encoded value (of this format) in place; returns it. */
  static byte[] stamp(byte[] value, long epoch) {
    ByteBuffer.wrap(value).putLong(EPOCH_OFFSET, epoch);
    return value;
  }

  /** The write epoch of a value of this format, or {@link Long#MIN_VALUE} for any other bytes. */
  static long epoch(byte[] value) {
    return value.length >= VALUE_HEADER && value[0] == FORMAT ? ByteBuffer.wrap(value).getLong(EPOCH_OFFSET)
        : Long.MIN_VALUE;
  }

  /** Whether two encoded values hold the same partition (equal bytes apart from their epochs). */
  static boolean sameContent(byte[] a, byte[] b) {
    if (a == null || b == null || a.length != b.length || a.length < VALUE_HEADER) {
      return false;
    }
    return java.util.Arrays.equals(a, 0, EPOCH_OFFSET, b, 0, EPOCH_OFFSET)
        && java.util.Arrays.equals(a, VALUE_HEADER, a.length, b, VALUE_HEADER, b.length);
  }

  /** The partition, or null when the bytes are of another format, version or table (a cache miss). */
  CachedPartition value(RowCacheKey key, byte[] bytes) {
    if (bytes.length < VALUE_HEADER) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    if (b.get() != FORMAT || b.getInt() != messagingVersion.getAsInt()) {
      return null;
    }
    TableId id = TableId.fromUUID(new UUID(b.getLong(), b.getLong()));
    if (!id.equals(key.tableId)) {
      return null;
    }
    // a dropped table needs no look-up here: the serializer looks the table up itself
    // (Schema.getExistingTableMetadata) and throws for one that is gone, a miss below
    try (DataInputBuffer in = new DataInputBuffer(bytes, VALUE_HEADER, bytes.length - VALUE_HEADER)) {
      return CachedPartition.cacheSerializer.deserialize(in);
    } catch (IOException | RuntimeException | AssertionError e) {
      return null; // the table changed under the bytes (dropped meanwhile, altered): not servable
    }
  }
}
