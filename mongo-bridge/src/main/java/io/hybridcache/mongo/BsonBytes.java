package io.hybridcache.mongo;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Thread-safe (stateless) reading and writing of raw BSON bytes (bsonspec.org 1.1): element
 * boundaries by type, little-endian integers, cstrings. Every read checks its bounds against the
 * enclosing document and throws {@link IllegalArgumentException} naming the offset, so a malformed
 * document is an error, never a wrong document.
 */
final class BsonBytes {
  static final int DOCUMENT = 0x03;
  static final int ARRAY = 0x04;
  /** MongoDB's maxBsonObjectSize: the largest document a server accepts (16 MiB). */
  static final int MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

  private BsonBytes() {}

  /** One element of a document: its type, name (raw UTF-8 bytes) and where its value lies. */
  record Element(int type, int nameStart, int nameEnd, int valueStart, int valueEnd) {
    int valueLength() {
      return valueEnd - valueStart;
    }
  }

  /** The elements of the document at {@code start} in {@code b}, in document order. */
  static List<Element> elements(byte[] b, int start) {
    int end = documentEnd(b, start);
    List<Element> out = new ArrayList<>();
    int p = start + 4;
    while (true) {
      check(p < end, "element type", p, b);
      int type = b[p] & 0xFF;
      if (type == 0) {
        check(p == end - 1, "document terminator", p, b);
        return out;
      }
      int nameStart = p + 1;
      int nameEnd = cstringEnd(b, nameStart, end);
      int valueStart = nameEnd + 1;
      int valueEnd = valueEnd(b, type, valueStart, end - 1);
      out.add(new Element(type, nameStart, nameEnd, valueStart, valueEnd));
      p = valueEnd;
    }
  }

  /** The end (exclusive) of the document whose int32 length is at {@code start}; checks it fits. */
  static int documentEnd(byte[] b, int start) {
    check(start >= 0 && b.length - start >= 5, "document length", start, b);
    int len = int32(b, start);
    check(len >= 5 && len <= b.length - start, "document length " + len, start, b);
    check(b[start + len - 1] == 0, "document terminator", start + len - 1, b);
    return start + len;
  }

  /**
   * The end of the value of {@code type} starting at {@code p}; {@code limit} is where the enclosing
   * document's elements end.
   */
  static int valueEnd(byte[] b, int type, int p, int limit) {
    int n = switch (type) {
      case 0x01, 0x09, 0x11, 0x12 -> 8; // double, UTC datetime, timestamp, int64
      case 0x02, 0x0D, 0x0E -> 4 + stringLength(b, p, limit); // string, JavaScript, symbol
      case DOCUMENT, ARRAY, 0x0F -> { // document, array, code with scope: int32 total length
        check(limit - p >= 5, "nested length", p, b);
        int len = int32(b, p);
        check(len >= 5 && len <= limit - p, "nested length " + len, p, b);
        yield len;
      }
      case 0x05 -> { // binary: int32 length, subtype, bytes
        check(limit - p >= 5, "binary length", p, b);
        int len = int32(b, p);
        check(len >= 0 && len <= limit - p - 5, "binary length " + len, p, b);
        yield 5 + len;
      }
      case 0x06, 0x0A, 0x7F, 0xFF -> 0; // undefined, null, max key, min key
      case 0x07 -> 12; // ObjectId
      case 0x08 -> 1; // boolean
      case 0x0B -> { // regex: two cstrings
        int e1 = cstringEnd(b, p, limit);
        yield cstringEnd(b, e1 + 1, limit) + 1 - p;
      }
      case 0x0C -> 4 + stringLength(b, p, limit) + 12; // DBPointer: string, ObjectId
      case 0x10 -> 4; // int32
      case 0x13 -> 16; // decimal128
      default -> throw new IllegalArgumentException("not BSON: unknown element type 0x" + Integer.toHexString(type)
          + " at offset " + (p - 1));
    };
    check(n >= 0 && n <= limit - p, "value of type 0x" + Integer.toHexString(type), p, b);
    return p + n;
  }

  /** The byte count after a string's int32 length prefix (bytes + NUL). */
  private static int stringLength(byte[] b, int p, int limit) {
    check(limit - p >= 5, "string length", p, b);
    int len = int32(b, p);
    check(len >= 1 && len <= limit - p - 4 && b[p + 4 + len - 1] == 0, "string length " + len, p, b);
    return len;
  }

  /** The offset of the NUL ending the cstring at {@code p}, before {@code limit}. */
  static int cstringEnd(byte[] b, int p, int limit) {
    for (int i = p; i < limit; i++) {
      if (b[i] == 0) {
        return i;
      }
    }
    throw new IllegalArgumentException("not BSON: unterminated name at offset " + p);
  }

  /** The UTF-8 name in [start, end), or null if the bytes are not valid UTF-8 (no exact round trip). */
  static String name(byte[] b, int start, int end) {
    boolean ascii = true;
    for (int i = start; i < end && ascii; i++) {
      ascii = b[i] > 0;
    }
    if (ascii) {
      return new String(b, start, end - start, StandardCharsets.ISO_8859_1);
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, start, end - start)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  static int int32(byte[] b, int p) {
    return (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16 | (b[p + 3] & 0xFF) << 24;
  }

  private static void check(boolean ok, String what, int at, byte[] b) {
    if (!ok) {
      throw new IllegalArgumentException("not BSON: bad " + what + " at offset " + at + " of " + b.length + " bytes");
    }
  }

  /**
   * {@code doc} (a whole document) with its {@code _id} element moved to the front, as MongoDB
   * stores it; the same array if {@code _id} is already first or absent.
   */
  static byte[] idFirst(byte[] doc) {
    List<Element> els = elements(doc, 0);
    for (int i = 0; i < els.size(); i++) {
      Element e = els.get(i);
      if (isId(doc, e)) {
        if (i == 0) {
          return doc;
        }
        byte[] out = new byte[doc.length];
        int headStart = els.get(0).nameStart() - 1;
        int idStart = e.nameStart() - 1;
        System.arraycopy(doc, 0, out, 0, 4);
        int p = 4;
        System.arraycopy(doc, idStart, out, p, e.valueEnd() - idStart);
        p += e.valueEnd() - idStart;
        System.arraycopy(doc, headStart, out, p, idStart - headStart);
        p += idStart - headStart;
        System.arraycopy(doc, e.valueEnd(), out, p, doc.length - e.valueEnd());
        return out;
      }
    }
    return doc;
  }

  /** True if {@code e} of {@code doc} is named {@code _id}. */
  static boolean isId(byte[] doc, Element e) {
    return e.nameEnd() - e.nameStart() == 3 && doc[e.nameStart()] == '_' && doc[e.nameStart() + 1] == 'i'
        && doc[e.nameStart() + 2] == 'd';
  }

  /** A growable little-endian BSON writer. Not thread-safe (one per document written). */
  static final class Out {
    private byte[] buf;
    private int pos;

    Out(int capacity) {
      buf = new byte[Math.max(64, capacity)];
    }

    int position() {
      return pos;
    }

    void u8(int v) {
      ensure(1);
      buf[pos++] = (byte) v;
    }

    void bytes(byte[] b, int off, int len) {
      ensure(len);
      System.arraycopy(b, off, buf, pos, len);
      pos += len;
    }

    /** A cstring name: its UTF-8 bytes and a NUL. */
    void name(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      bytes(b, 0, b.length);
      u8(0);
    }

    /** Reserves an int32 length and returns where it is, for {@link #endDocument}. */
    int beginDocument() {
      ensure(4);
      pos += 4;
      return pos - 4;
    }

    /** Writes the terminator and the length of the document begun at {@code at}. */
    void endDocument(int at) {
      u8(0);
      int len = pos - at;
      buf[at] = (byte) len;
      buf[at + 1] = (byte) (len >>> 8);
      buf[at + 2] = (byte) (len >>> 16);
      buf[at + 3] = (byte) (len >>> 24);
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, pos);
    }

    private void ensure(int n) {
      if (buf.length - pos < n) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
      }
    }
  }
}
