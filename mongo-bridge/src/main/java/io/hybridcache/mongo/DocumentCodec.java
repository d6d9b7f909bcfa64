package io.hybridcache.mongo;

import io.hybridcache.core.catalog.Row;
import io.hybridcache.core.catalog.RowCodec;
import io.hybridcache.core.catalog.RowFormatException;
import io.hybridcache.core.catalog.SchemaCatalog;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * A thread-safe codec between raw BSON documents and catalogue-encoded cache values: field names go
 * to the {@link SchemaCatalog} (a document is a {@link Row} of its fields, a nested document a nested
 * row with its own schema id), and every value keeps its BSON type byte and its exact BSON value
 * bytes, so {@code decode(encode(doc))} is byte-for-byte {@code doc}: field order, every BSON type
 * (deprecated ones included), -0.0 and NaN payloads, binary subtypes, duplicate or odd names.
 *
 * <p>Thread-safe: holds only a {@link RowCodec} (itself thread-safe).
 *
 * <p>Format (version {@value #FORMAT_VERSION}; varint = unsigned LEB128; also in
 * {@code src/site/format.md}, section "Mongo document"):
 *
 * <pre>
 *  byte 0        header: bits 7..4 format version (1); bits 3..0 kind: 0 = ROW, 1 = RAW
 *  ROW:          a RowCodec row (schema id + values); column = field name, value = one of
 *                  nested row       an embedded document (type 0x03) that is representable
 *                  [t][v]           BSON type byte t, then the element's value bytes exactly as in
 *                                   BSON (a 0x03/0x04 here is a raw embedded document/array)
 *                  [0x84] array     compact array: varint n, then n elements, each [t][v], or
 *                                   [0x83][varint len][RowCodec row] (a document, own schema id),
 *                                   or [0x84]... (a nested compact array); keys "0".."n-1" implied
 *                column "\0..." (ORDER) present only if the fields are not in sort order: with at
 *                most 127 fields the name is NUL + one char per field (its sorted position + 1) and
 *                the value is empty; with more, the name is NUL alone and the value n varints
 *  RAW:          the BSON document as is (a document the row form cannot hold)
 * </pre>
 *
 * A document (or nested document) falls back to raw BSON when a row cannot hold it: a field name
 * that is empty, longer than 255 bytes, not valid UTF-8 or repeated; more than 1024 columns (1023
 * fields plus ORDER); row nesting deeper than {@link RowCodec#MAX_DEPTH}; total nesting deeper than
 * {@value #MAX_DEPTH}. An array whose keys are not "0".."n-1" is kept raw. BSON field names cannot
 * contain NUL, so ORDER never collides with a field. The format carries no checksum (the cache's
 * entries have one); a value that is not well-formed is a {@link RowFormatException} naming the
 * problem, and decoding always yields a well-formed BSON document or that error.
 */
public final class DocumentCodec {
  public static final int FORMAT_VERSION = 1;
  /** Nesting (documents and arrays) past which a subtree is kept as raw BSON (MongoDB allows 100). */
  public static final int MAX_DEPTH = 100;
  static final int KIND_ROW = 0;
  static final int KIND_RAW = 1;
  static final int TAG_ROW_DOCUMENT = 0x83;
  static final int TAG_ARRAY = 0x84;
  static final char ORDER = '\0';
  private static final int MAX_ORDER_IN_NAME = 127;
  private static final int MAX_COLUMNS = SchemaCatalog.MAX_COLUMNS;
  private static final int MAX_NAME_BYTES = SchemaCatalog.MAX_NAME_BYTES;

  private final RowCodec rows;

  /** Documents whose schemas live in {@code namespace} of {@code catalog} (one per collection). */
  public DocumentCodec(SchemaCatalog catalog, String namespace) {
    this.rows = new RowCodec(catalog, namespace);
  }

  public String namespace() {
    return rows.namespace();
  }

  // ---- encode ----

  /**
   * The cache value of the BSON document {@code bson} (a whole document, e.g.
   * {@code RawBsonDocument.getByteBuffer()} bytes). New schemas are made durable first.
   *
   * @throws IllegalArgumentException {@code bson} is not a well-formed BSON document
   */
  public byte[] encode(byte[] bson) {
    Objects.requireNonNull(bson, "bson");
    if (BsonBytes.documentEnd(bson, 0) != bson.length) {
      throw new IllegalArgumentException("not BSON: the document's length says " + BsonBytes.int32(bson, 0)
          + " bytes, the array holds " + bson.length);
    }
    Row row = toRow(bson, 0, 1, 1);
    if (row == null) {
      byte[] out = new byte[bson.length + 1];
      out[0] = (byte) (FORMAT_VERSION << 4 | KIND_RAW);
      System.arraycopy(bson, 0, out, 1, bson.length);
      return out;
    }
    byte[] r = rows.encode(row);
    byte[] out = new byte[r.length + 1];
    out[0] = (byte) (FORMAT_VERSION << 4 | KIND_ROW);
    System.arraycopy(r, 0, out, 1, r.length);
    return out;
  }

  /** The document at {@code start} as a row, or null if a row cannot hold it (then it stays raw). */
  private Row toRow(byte[] b, int start, int rowDepth, int depth) {
    List<BsonBytes.Element> els = BsonBytes.elements(b, start);
    int n = els.size();
    if (n > MAX_COLUMNS) {
      return null;
    }
    String[] names = new String[n];
    Set<String> seen = n > 8 ? new HashSet<>(n * 2) : null;
    boolean sorted = true;
    for (int i = 0; i < n; i++) {
      BsonBytes.Element e = els.get(i);
      int len = e.nameEnd() - e.nameStart();
      String name = len == 0 || len > MAX_NAME_BYTES ? null : BsonBytes.name(b, e.nameStart(), e.nameEnd());
      if (name == null) {
        return null;
      }
      if (i > 0 && sorted && names[i - 1].compareTo(name) >= 0) {
        sorted = false;
      }
      if (seen != null ? !seen.add(name) : contains(names, i, name)) {
        return null; // repeated name: only raw BSON can hold it
      }
      names[i] = name;
    }
    if (!sorted && n + 1 > MAX_COLUMNS) {
      return null;
    }
    Row.Builder rb = Row.builder();
    for (int i = 0; i < n; i++) {
      BsonBytes.Element e = els.get(i);
      if (e.type() == BsonBytes.DOCUMENT && rowDepth < RowCodec.MAX_DEPTH && depth < MAX_DEPTH) {
        Row nested = toRow(b, e.valueStart(), rowDepth + 1, depth + 1);
        if (nested != null) {
          rb.put(names[i], nested);
          continue;
        }
      }
      rb.put(names[i], value(b, e, depth));
    }
    if (!sorted) {
      putOrder(rb, names);
    }
    return rb.build();
  }

  private static boolean contains(String[] names, int n, String name) {
    for (int i = 0; i < n; i++) {
      if (names[i].equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** A non-row value: a compact array if possible, else [type][BSON value bytes]. */
  private byte[] value(byte[] b, BsonBytes.Element e, int depth) {
    if (e.type() == BsonBytes.ARRAY && depth < MAX_DEPTH) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(e.valueLength() + 8);
      if (compactArray(out, b, e.valueStart(), depth + 1)) {
        return out.toByteArray();
      }
    }
    byte[] v = new byte[1 + e.valueLength()];
    v[0] = (byte) e.type();
    System.arraycopy(b, e.valueStart(), v, 1, e.valueLength());
    return v;
  }

  /** Writes the array at {@code start} in compact form; false (out unusable) if its keys are not 0..n-1. */
  private boolean compactArray(ByteArrayOutputStream out, byte[] b, int start, int depth) {
    List<BsonBytes.Element> els = BsonBytes.elements(b, start);
    for (int i = 0; i < els.size(); i++) {
      BsonBytes.Element e = els.get(i);
      if (!isIndex(b, e.nameStart(), e.nameEnd(), i)) {
        return false;
      }
    }
    out.write(TAG_ARRAY);
    varint(out, els.size());
    for (BsonBytes.Element e : els) {
      if (e.type() == BsonBytes.DOCUMENT && depth < MAX_DEPTH) {
        Row r = toRow(b, e.valueStart(), 1, depth + 1);
        if (r != null) {
          byte[] enc = rows.encode(r);
          out.write(TAG_ROW_DOCUMENT);
          varint(out, enc.length);
          out.write(enc, 0, enc.length);
          continue;
        }
      } else if (e.type() == BsonBytes.ARRAY && depth < MAX_DEPTH) {
        ByteArrayOutputStream inner = new ByteArrayOutputStream(e.valueLength() + 8);
        if (compactArray(inner, b, e.valueStart(), depth + 1)) {
          byte[] a = inner.toByteArray();
          out.write(a, 0, a.length);
          continue;
        }
      }
      out.write(e.type());
      out.write(b, e.valueStart(), e.valueLength());
    }
    return true;
  }

  private static boolean isIndex(byte[] b, int start, int end, int i) {
    String s = Integer.toString(i);
    if (end - start != s.length()) {
      return false;
    }
    for (int k = 0; k < s.length(); k++) {
      if (b[start + k] != s.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  /** Adds the ORDER column recording {@code names}' document order against their sort order. */
  private static void putOrder(Row.Builder rb, String[] names) {
    String[] sorted = names.clone();
    Arrays.sort(sorted);
    int n = names.length;
    if (n <= MAX_ORDER_IN_NAME) {
      StringBuilder sb = new StringBuilder(n + 1).append(ORDER);
      for (String name : names) {
        sb.append((char) (Arrays.binarySearch(sorted, name) + 1));
      }
      rb.put(sb.toString(), new byte[0]);
    } else {
      ByteArrayOutputStream out = new ByteArrayOutputStream(2 * n);
      for (String name : names) {
        varint(out, Arrays.binarySearch(sorted, name));
      }
      rb.put(String.valueOf(ORDER), out.toByteArray());
    }
  }

  private static void varint(ByteArrayOutputStream out, int v) {
    while ((v & ~0x7F) != 0) {
      out.write((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.write(v);
  }

  // ---- decode ----

  /**
   * The BSON document {@code value} was encoded from, byte for byte.
   *
   * @throws RowFormatException the value is corrupt or not of this format
   * @throws io.hybridcache.core.catalog.UnknownSchemaException it names a schema the catalogue lacks
   */
  public byte[] decode(byte[] value) {
    Objects.requireNonNull(value, "value");
    int kind = kind(value);
    if (kind == KIND_RAW) {
      byte[] bson = Arrays.copyOfRange(value, 1, value.length);
      try {
        if (BsonBytes.documentEnd(bson, 0) == bson.length) {
          return bson;
        }
      } catch (IllegalArgumentException e) {
        throw new RowFormatException("corrupt raw document value: " + e.getMessage());
      }
      throw new RowFormatException("corrupt raw document value: length field disagrees with the value");
    }
    Row row = rows.decode(Arrays.copyOfRange(value, 1, value.length));
    BsonBytes.Out out = new BsonBytes.Out(value.length * 2);
    try {
      writeRow(out, row);
    } catch (IllegalArgumentException e) {
      throw e instanceof RowFormatException r ? r : new RowFormatException("corrupt document value: " + e.getMessage());
    }
    return out.toByteArray();
  }

  private static int kind(byte[] value) {
    if (value.length < 2 || (value[0] & 0xFF) >>> 4 != FORMAT_VERSION || (value[0] & 0x0F) > KIND_RAW) {
      throw new RowFormatException("not a document value of format " + FORMAT_VERSION + ": "
          + (value.length == 0 ? "empty" : "header byte 0x" + Integer.toHexString(value[0] & 0xFF)));
    }
    return value[0] & 0x0F;
  }

  private void writeRow(BsonBytes.Out out, Row row) {
    List<String> cols = row.columns();
    int first = !cols.isEmpty() && cols.get(0).charAt(0) == ORDER ? 1 : 0;
    int n = cols.size() - first;
    int[] order = first == 1 ? order(cols.get(0), row.bytes(cols.get(0)), n) : null;
    int at = out.beginDocument();
    for (int i = 0; i < n; i++) {
      String name = cols.get(first + (order == null ? i : order[i]));
      if (row.isNested(name)) {
        out.u8(BsonBytes.DOCUMENT);
        out.name(name);
        writeRow(out, row.row(name));
      } else {
        writeValue(out, name, row.bytes(name));
      }
    }
    out.endDocument(at);
  }

  private void writeValue(BsonBytes.Out out, String name, byte[] v) {
    if (v.length == 0) {
      throw new RowFormatException("corrupt document value: field '" + name + "' has no type byte");
    }
    int tag = v[0] & 0xFF;
    if (tag == TAG_ARRAY) {
      out.u8(BsonBytes.ARRAY);
      out.name(name);
      int end = writeArray(out, v, 1);
      if (end != v.length) {
        throw new RowFormatException("corrupt document value: " + (v.length - end) + " bytes after array '" + name + "'");
      }
      return;
    }
    int end = BsonBytes.valueEnd(v, tag, 1, v.length);
    if (end != v.length) {
      throw new RowFormatException("corrupt document value: field '" + name + "' of type 0x" + Integer.toHexString(tag)
          + " has " + (v.length - end) + " extra bytes");
    }
    out.u8(tag);
    out.name(name);
    out.bytes(v, 1, v.length - 1);
  }

  /** Writes the compact array whose count is at {@code p} in {@code v}; returns the offset after it. */
  private int writeArray(BsonBytes.Out out, byte[] v, int p) {
    int[] cur = {p};
    long n = varint(v, cur);
    int at = out.beginDocument();
    for (long i = 0; i < n; i++) {
      if (cur[0] >= v.length) {
        throw new RowFormatException("corrupt document value: array of " + n + " elements truncated at " + i);
      }
      int tag = v[cur[0]++] & 0xFF;
      String key = Long.toString(i);
      if (tag == TAG_ROW_DOCUMENT) {
        int len = (int) varint(v, cur);
        if (len > v.length - cur[0]) {
          throw new RowFormatException("corrupt document value: array element " + i + " of " + len + " bytes truncated");
        }
        out.u8(BsonBytes.DOCUMENT);
        out.name(key);
        writeRow(out, rows.decode(Arrays.copyOfRange(v, cur[0], cur[0] + len)));
        cur[0] += len;
      } else if (tag == TAG_ARRAY) {
        out.u8(BsonBytes.ARRAY);
        out.name(key);
        cur[0] = writeArray(out, v, cur[0]);
      } else {
        int end = BsonBytes.valueEnd(v, tag, cur[0], v.length);
        out.u8(tag);
        out.name(key);
        out.bytes(v, cur[0], end - cur[0]);
        cur[0] = end;
      }
    }
    out.endDocument(at);
    return cur[0];
  }

  /** The document order of {@code n} fields from the ORDER column: order[i] = sorted index of field i. */
  private static int[] order(String name, byte[] value, int n) {
    int[] order = new int[n];
    if (name.length() > 1) {
      if (name.length() != n + 1 || value.length != 0) {
        throw new RowFormatException("corrupt document value: order of " + (name.length() - 1) + " fields for " + n);
      }
      for (int i = 0; i < n; i++) {
        order[i] = name.charAt(i + 1) - 1;
      }
    } else {
      int[] cur = {0};
      for (int i = 0; i < n; i++) {
        order[i] = (int) Math.min(Integer.MAX_VALUE, varint(value, cur));
      }
      if (cur[0] != value.length) {
        throw new RowFormatException("corrupt document value: " + (value.length - cur[0]) + " bytes after the order");
      }
    }
    boolean[] seen = new boolean[n];
    for (int o : order) {
      if (o < 0 || o >= n || seen[o]) {
        throw new RowFormatException("corrupt document value: field order is not a permutation of " + n + " fields");
      }
      seen[o] = true;
    }
    return order;
  }

  private static long varint(byte[] b, int[] cur) {
    long v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (cur[0] >= b.length) {
        throw new RowFormatException("corrupt document value: truncated varint at offset " + cur[0]);
      }
      int x = b[cur[0]++] & 0xFF;
      v |= (long) (x & 0x7F) << shift;
      if ((x & 0x80) == 0) {
        return v;
      }
    }
    throw new RowFormatException("corrupt document value: varint too long at offset " + cur[0]);
  }

  // ---- schema ids ----

  /**
   * Calls {@code action} with every schema id {@code value} references, nested rows and documents in
   * arrays included (the live set for {@link SchemaCatalog#reclaim}).
   */
  public void forEachSchemaId(byte[] value, LongConsumer action) {
    Objects.requireNonNull(value, "value");
    if (kind(value) == KIND_ROW) {
      rowIds(Arrays.copyOfRange(value, 1, value.length), action);
    }
  }

  private void rowIds(byte[] rowBytes, LongConsumer action) {
    rows.forEachSchemaId(rowBytes, action);
    arrayIds(rows.decode(rowBytes), action);
  }

  private void arrayIds(Row row, LongConsumer action) {
    for (String c : row.columns()) {
      if (row.isNested(c)) {
        arrayIds(row.row(c), action);
      } else {
        byte[] v = row.bytes(c);
        if (v.length > 0 && (v[0] & 0xFF) == TAG_ARRAY) {
          arrayElementIds(v, 1, action);
        }
      }
    }
  }

  private int arrayElementIds(byte[] v, int p, LongConsumer action) {
    int[] cur = {p};
    long n = varint(v, cur);
    for (long i = 0; i < n; i++) {
      int tag = v[cur[0]++] & 0xFF;
      if (tag == TAG_ROW_DOCUMENT) {
        int len = (int) varint(v, cur);
        rowIds(Arrays.copyOfRange(v, cur[0], cur[0] + len), action);
        cur[0] += len;
      } else if (tag == TAG_ARRAY) {
        cur[0] = arrayElementIds(v, cur[0], action);
      } else {
        cur[0] = BsonBytes.valueEnd(v, tag, cur[0], v.length);
      }
    }
    return cur[0];
  }

  /** True if {@code value} holds the document as a catalogue row (false: raw BSON fallback). */
  public static boolean isRow(byte[] value) {
    return kind(value) == KIND_ROW;
  }

  @Override
  public String toString() {
    return "DocumentCodec[" + rows.namespace() + "]";
  }
}
